package model

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nspda/nspda/internal/limits"
	"github.com/nspda/nspda/nn"
)

// TestParamCountExact: the count CheckParams reads off models of 1, 2 and
// 3 units is every model's count at other sizes, alphabets, orders and
// stacks.
func TestParamCountExact(t *testing.T) {
	for _, spec := range Specs() {
		if spec.Name == "nspda" {
			continue
		}
		for _, alphabet := range []string{"ab", "abcdefg"} {
			for _, opt := range []nn.Options{opts(spec, 0, map[string]any{"order": 3}), opts(spec, 0, map[string]any{"order": 2}), opts(spec, 0, map[string]any{"order": 3, "stacks": 3})} {
				for _, j := range []int{4, 9, 17} {
					opt.Hidden = j
					m, err := spec.New([]rune(alphabet), opt, rand.New(rand.NewPCG(1, 2)))
					if err != nil {
						t.Fatalf("%s %+v: %v", spec.Name, opt, err)
					}
					got, err := paramCount(spec, []rune(alphabet), opt)
					if err != nil || got != len(m.Params()) {
						t.Errorf("%s over %q %+v: counted %d (%v), has %d", spec.Name, alphabet, opt, got, err, len(m.Params()))
					}
				}
			}
		}
	}
}

// TestCheckParams: a model within limits.Sizes whose parameters would be
// more than limits.Params is refused before it is allocated (train used to
// ask for 8 TB for an NNPDA of 4096 units over 250 symbols, and died with
// "fatal error: out of memory" and a stack trace); models of the paper's
// sizes, and every model at its default size over the largest alphabet,
// pass.
func TestCheckParams(t *testing.T) {
	wide := make([]rune, limits.Alphabet)
	for i := range wide {
		wide[i] = rune(0x100 + i)
	}
	for _, name := range []string{"nnpda", "second-order", "lstm", "mi-lstm"} {
		spec, _ := Lookup(name)
		err := CheckParams(spec, wide[:250], opts(spec, limits.Units, map[string]any{"order": 3}))
		if err == nil || !strings.Contains(err.Error(), "more than the limit of 67108864") {
			t.Errorf("%s at %d units: %v", name, limits.Units, err)
		}
	}
	for _, spec := range Specs() {
		if err := CheckParams(spec, []rune("ab"), opts(spec, 64, map[string]any{"stacks": 10, "order": 3})); err != nil {
			t.Errorf("%s at 64 units: %v", spec.Name, err)
		}
		if spec.Name == "nspda" {
			continue
		}
		m, err := spec.New(wide, opts(spec, 0, map[string]any{"order": 3}), rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(m.Params()); n > limits.Params {
			t.Errorf("%s at its default size over %d symbols has %d parameters, more than the limit", spec.Name, len(wide), n)
		}
	}
}
