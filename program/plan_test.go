package program

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/internal/testutil"
	"github.com/nspda/nspda/model/nspda"
)

// cycle is a PDA of m states over l symbols in which every symbol, under
// any top, pushes and moves to the next state: at second order every pair
// (state, symbol) is a neuron of its own.
func cycle(t *testing.T, m, l int) *grammar.PDA {
	t.Helper()
	p := grammar.PDA{Name: "cycle", Start: 0}
	for i := range l {
		p.Alphabet = append(p.Alphabet, rune(0x100+i))
	}
	for q := range m {
		p.States = append(p.States, fmt.Sprintf("q%d", q))
		p.Accept = append(p.Accept, q == 0)
		for s := range l {
			p.Transitions = append(p.Transitions, grammar.Transition{From: q, Input: s, Top: grammar.TopAny, To: (q + 1) % m, Op: grammar.Push})
		}
	}
	pda, err := grammar.New(p)
	if err != nil {
		t.Fatal(err)
	}
	return pda
}

// TestCompileRefusesLargeShapeFirst: a PDA whose network would have more
// parameters than the limit is refused from its shape alone, before the
// settings are made (here about a million of them at second order, and as
// many at third) or the dead state's completion.
func TestCompileRefusesLargeShapeFirst(t *testing.T) {
	for _, c := range []struct {
		order nspda.Order
		m, l  int
		dead  bool
	}{
		{nspda.Second, 40, 30, false},
		{nspda.Second, 40, 30, true},
		{nspda.Third, 500, 20, false},
		{nspda.Third, 500, 20, true},
	} {
		p := cycle(t, c.m, c.l)
		var err error
		got := testutil.Allocated(func() { _, err = Compile(p, Options{Order: c.order, Dead: c.dead}) })
		if err == nil || !strings.Contains(err.Error(), "more than the limit") {
			t.Errorf("order %d, %d states, %d symbols: Compile = %v, want a size error", c.order, c.m, c.l, err)
		}
		if got > 4<<20 {
			t.Errorf("order %d, %d states, %d symbols, dead %v: Compile allocated %d KiB before refusing", c.order, c.m, c.l, c.dead, got>>10)
		}
	}
}

// TestPlanIsTheCompiledShape: plan counts exactly the neurons and actions
// the compiler makes, for random PDAs whose operations depend on the top
// (the second-order gadgets) with and without the dead state.
func TestPlanIsTheCompiledShape(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 60 {
		p := randomPDA(rng, 1+rng.IntN(5), 1+rng.IntN(4))
		for _, order := range []nspda.Order{nspda.Second, nspda.Third} {
			opt := Options{Order: order, Dead: trial%2 == 0}.withDefaults()
			want, err := plan(p, opt)
			if err != nil {
				t.Fatal(err)
			}
			prog := mustCompile(t, p, opt)
			if prog.Shape != want {
				t.Fatalf("trial %d order %d: compiled %+v, planned %+v", trial, order, prog.Shape, want)
			}
		}
	}
}

// TestFeasibleHAEmptyForLargeAlphabets: once the read noise of the other
// symbols reaches the top's value no strength works, and the interval is
// empty rather than a negative one (which programmed a negative HA for 100
// symbols).
func TestFeasibleHAEmptyForLargeAlphabets(t *testing.T) {
	for L := 1; L <= 256; L++ {
		if lo, hi := FeasibleHA(L); lo < hi && lo <= 0 {
			t.Fatalf("FeasibleHA(%d) = (%g, %g): not a set of positive strengths", L, lo, hi)
		}
	}
	for _, order := range []nspda.Order{nspda.Second, nspda.Third} {
		_, err := Compile(cycle(t, 2, 100), Options{Order: order})
		if err == nil || !strings.Contains(err.Error(), "100 symbols is too large") {
			t.Errorf("order %d: Compile over 100 symbols = %v, want it refused", order, err)
		}
	}
}
