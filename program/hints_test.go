package program

import (
	"fmt"
	"testing"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
)

// TestHints: hint 1 keeps only action rules; hint 2 adds the rules into the
// dead state, less the re-entry points when refining; Hinted marks the steps
// whose transition hint 2 programs.
func TestHints(t *testing.T) {
	p := builtin(t, "anbn").PDA
	h1, err := HintProgram(p, nspda.Third, 1, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range h1.Sets {
		if s.Kind != ActionRule {
			t.Fatalf("hint 1 has a %v rule", s.Kind)
		}
	}
	h2, _ := HintProgram(p, nspda.Third, 2, 1, 1)
	h2r, _ := HintProgram(p, nspda.Third, 2, 1, 4)
	dead := func(pr *Program) int {
		n := 0
		for _, s := range pr.Sets {
			if s.IntoDead {
				n++
			}
		}
		return n
	}
	if dead(h2) == 0 || dead(h2r) >= dead(h2) {
		t.Errorf("dead rules: %d without refinement, %d with; refinement must drop the re-entry points", dead(h2), dead(h2r))
	}
	// q1 -a,⊥-> is a re-entry point of q0 -a,⊥-> q1.
	for _, s := range h2r.Sets {
		if s.Rule == "q1 -a,⊥-> dead noop" {
			t.Error("refined hint 2 programs q1 on (a, ⊥) into the dead state")
		}
	}
	syms, _ := p.Encode("abba")
	h := Hinted(p, 2, syms)
	if want := []bool{false, false, true, true, false}; !equal(h, want) {
		t.Errorf("Hinted(abba) = %v, want %v", h, want)
	}
	syms, _ = p.Encode("ab")
	if h := Hinted(p, 2, syms); !equal(h, []bool{false, false, true}) {
		t.Errorf("Hinted(ab) = %v: the accepting end marker is hinted", h)
	}
	if Hinted(p, 1, syms) != nil {
		t.Error("hint 1 programs no state transition, so no step is hinted")
	}
}

func equal(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestHintsMatchRenderedRules: selecting the re-entry points by their
// structured Where gives exactly the settings that matching the rendered
// rule "q' -a,k-> dead noop" gave before Sets carried a Where, for every
// built-in language, both orders and both refinements.
func TestHintsMatchRenderedRules(t *testing.T) {
	for _, name := range grammar.Names() {
		p := builtin(t, name).PDA
		rendered := map[string]bool{}
		for w := range reentries(p) {
			top := "⊥"
			if w.Top < p.L() {
				top = string(p.Alphabet[w.Top])
			}
			rendered[fmt.Sprintf("%s -%c,%s-> %s noop", p.States[w.State], p.Alphabet[w.Symbol], top, DeadName(p))] = true
		}
		for _, order := range []nspda.Order{nspda.Second, nspda.Third} {
			for _, refine := range []int{1, 4} {
				got, err := HintProgram(p, order, 2, 1, refine)
				if err != nil {
					t.Fatal(err)
				}
				all, _ := Compile(p, Options{Order: order, Dead: true, H: 1})
				want := all.Select(func(s Set) bool {
					if s.IntoDead && refine > 1 && rendered[s.Rule] {
						return false
					}
					return s.Kind == ActionRule || s.IntoDead || s.Kind == AcceptRule || s.Kind == BiasRule
				})
				if got.String() != want.String() {
					t.Errorf("%s, order %d, refine %d: hint 2 differs from the rule-string selection:\n%s\nwant:\n%s", name, order, refine, got, want)
				}
			}
		}
	}
}
