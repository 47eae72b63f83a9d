package program

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
)

var update = flag.Bool("update", false, "rewrite the golden program dumps in testdata/")

func builtin(t testing.TB, name string) *grammar.Language {
	t.Helper()
	lang, ok := grammar.Builtin(name)
	if !ok {
		t.Fatalf("no built-in %q", name)
	}
	return lang
}

// TestLanguagesExhaustive: every programmed network agrees with its PDA (and
// so with the recognizer) on every string up to a length: 10 symbols for the
// 2- and 3-symbol alphabets, 9 for dyck2's four (262,144 strings of length 9).
func TestLanguagesExhaustive(t *testing.T) {
	for _, name := range grammar.Names() {
		lang := builtin(t, name)
		maxLen := exhaustiveLen(lang.PDA)
		for _, order := range orders {
			for _, dead := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/order%d/dead=%v", name, order, dead), func(t *testing.T) {
					prog := mustCompile(t, lang.PDA, Options{Order: order, Dead: dead})
					agree(t, lang.PDA, prog.Model().NewRunner(), maxLen)
				})
			}
		}
	}
}

// TestLanguagesTestSets: 0 errors on test60, test480 and test960 (the paper's
// appendix table) for both orders, plus long random near-positive strings.
func TestLanguagesTestSets(t *testing.T) {
	sets := []string{"test60", "test480", "test960"}
	if testing.Short() {
		sets = sets[:1]
	}
	for _, name := range grammar.Names() {
		lang := builtin(t, name)
		for _, split := range sets {
			ex, err := dataset.GenerateSplit(lang, split, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, order := range orders {
				run := mustCompile(t, lang.PDA, Options{Order: order}).Model().NewRunner()
				res, err := evaluate.Run(split, run, lang.PDA, ex)
				if err != nil {
					t.Fatal(err)
				}
				if res.Errors != 0 {
					t.Errorf("%s order %d %s: %d errors of %d", name, order, split, res.Errors, res.Strings)
				}
			}
		}
	}
}

// TestLanguagesLongRandom runs 2000-symbol strings that follow the PDA's live
// transitions (deep stacks) and the same strings with one symbol changed.
func TestLanguagesLongRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, name := range grammar.Names() {
		lang := builtin(t, name)
		for _, order := range orders {
			run := mustCompile(t, lang.PDA, Options{Order: order}).Model().NewRunner()
			for i := 0; i < 50; i++ {
				n := 2 * (1 + rng.IntN(1000))
				s, ok := lang.Sample(rng, n+1)
				if !ok {
					s, _ = lang.Sample(rng, n)
				}
				syms, _ := lang.PDA.Encode(s)
				mutated := append([]int(nil), syms...)
				mutated[rng.IntN(len(mutated))] = rng.IntN(lang.PDA.L())
				for _, x := range [][]int{syms, mutated, liveString(rng, lang.PDA, 2000)} {
					if got, want := accept(run, x), lang.Recognize(lang.PDA.Decode(x)); got != want {
						t.Fatalf("%s order %d: network %v, recognizer %v on a string of length %d", name, order, got, want, len(x))
					}
				}
			}
		}
	}
}

// TestGoldenDumps pins the compiled programs of the five languages. Run
// `go test ./program -run Golden -update` after an intended change, and read
// the diff.
func TestGoldenDumps(t *testing.T) {
	for _, name := range grammar.Names() {
		for _, order := range orders {
			prog := mustCompile(t, builtin(t, name).PDA, Options{Order: order})
			path := filepath.Join("testdata", fmt.Sprintf("%s-order%d.golden", name, order))
			got := prog.String()
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the compiled program:\n%s", path, got)
			}
		}
	}
}

func TestSelectKeepsKinds(t *testing.T) {
	prog := mustCompile(t, builtin(t, "anbn").PDA, Options{Dead: true})
	actions := prog.Select(func(s Set) bool { return s.Kind == ActionRule })
	if len(actions.Sets) == 0 {
		t.Fatal("no action rules")
	}
	for _, s := range actions.Sets {
		if s.Tensor != nspda.TWa {
			t.Errorf("action rule writes %s", s.Tensor)
		}
	}
	dead := prog.Select(func(s Set) bool { return s.IntoDead })
	if len(dead.Sets) == 0 {
		t.Error("no rules into the dead state with Dead set")
	}
	// A partial program applied to a bigger network sets only its weights.
	m, err := nspda.New(nspda.Shape{Order: nspda.Third, L: 2, J: prog.Shape.J + 3, A: 2}, []rune("ab"))
	if err != nil {
		t.Fatal(err)
	}
	if err := actions.Apply(m); err != nil {
		t.Fatal(err)
	}
	nonzero := 0
	for _, v := range m.Params {
		if v != 0 {
			nonzero++
		}
	}
	if nonzero != len(actions.Sets) {
		t.Errorf("%d parameters set, want %d", nonzero, len(actions.Sets))
	}
	small, _ := nspda.New(nspda.Shape{Order: nspda.Third, L: 2, J: 2, A: 2}, []rune("ab"))
	if err := prog.Apply(small); err == nil {
		t.Error("program applied to a network too small for it")
	}
}

// BenchmarkProgrammedDyck2 measures classification throughput of programmed
// dyck2 networks on test480 strings, in input symbols per second.
func BenchmarkProgrammedDyck2(b *testing.B) {
	lang := builtin(b, "dyck2")
	ex, err := dataset.GenerateSplit(lang, "test480", 1)
	if err != nil {
		b.Fatal(err)
	}
	strs := make([][]int, len(ex))
	chars := 0
	for i, e := range ex {
		strs[i], _ = lang.PDA.Encode(e.String)
		chars += len(strs[i]) + 1
	}
	for _, order := range orders {
		b.Run(fmt.Sprintf("order%d", order), func(b *testing.B) {
			run := mustCompile(b, lang.PDA, Options{Order: order}).Model().NewRunner()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, s := range strs {
					run.Classify(s)
				}
			}
			b.ReportMetric(float64(chars)*float64(b.N)/b.Elapsed().Seconds(), "chars/s")
		})
	}
}

// exhaustiveLen is the length up to which the exhaustive tests compare a
// programmed network with its PDA: 10 for alphabets of up to three symbols,
// 9 for more (dyck2's four: 262,144 strings of length 9); two less with
// -short.
func exhaustiveLen(p *grammar.PDA) int {
	n := 10
	if p.L() > 3 {
		n = 9
	}
	if testing.Short() {
		n -= 2
	}
	return n
}
