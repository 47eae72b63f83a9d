package train

import (
	"fmt"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/program"
)

// Hints are partial knowledge of the PDA programmed into the network before
// training (paper Sec. 4; docs/design.md section 5, "Hints"). The paper does not define its
// Hint #1 and Hint #2; ours (docs/design.md):
//
//   - Hint 1: the stack-operation rules only — which input, under which top,
//     pushes or pops, from which state (the action weights of the program).
//   - Hint 2: Hint 1, plus the state transitions into the dead (reject)
//     state, plus acceptance at the end marker and the output weights, plus
//     the thresholds of the neurons those rules touch.
//
// The programmed weights stay trainable. The other weights keep their random
// initial values.
//
// With iterative refinement (refine > 1) a symbol's transition is applied
// again on the same input and read: after δ(q, a, k) = q', the next iteration
// sees (q', a, k). If the PDA has no transition there, Hint 2 would program
// one into the dead state and every refined step would die. Such re-entry
// points are therefore left out of the hint (the network learns to stay in
// q'), unless refine is 1 (docs/design.md, "Hints and refinement").
func HintProgram(p *grammar.PDA, order nspda.Order, level int, h float64, refine int) (*program.Program, error) {
	if level < 0 || level > 2 {
		return nil, fmt.Errorf("hint level must be 0, 1 or 2, not %d", level)
	}
	prog, err := program.Compile(p, program.Options{Order: order, Dead: level == 2, H: h})
	if err != nil {
		return nil, err
	}
	reentry := reentries(p)
	return prog.Select(func(s program.Set) bool {
		switch {
		case level == 0:
			return false
		case s.Kind == program.ActionRule:
			return true
		case level == 1:
			return false
		}
		if s.IntoDead && refine > 1 && reentry[s.Rule] {
			return false
		}
		return s.IntoDead || s.Kind == program.AcceptRule || s.Kind == program.BiasRule
	}), nil
}

// reentries returns the rules (as program.Set.Rule strings of the completed
// PDA) of the missing transitions (q', a, k) that refinement would meet right
// after a transition δ(q, a, k) = q'.
func reentries(p *grammar.PDA) map[string]bool {
	out := map[string]bool{}
	L := p.L()
	for q := 0; q < p.M(); q++ {
		for l := 0; l < L; l++ {
			for k := 0; k <= L; k++ {
				t, ok := p.Lookup(q, l, k)
				if !ok {
					continue
				}
				if _, ok := p.Lookup(t.To, l, k); !ok {
					out[deadRule(p, t.To, l, k)] = true
				}
			}
		}
	}
	return out
}

// deadRule renders a missing transition the way the program of the PDA
// completed with a dead state names it.
func deadRule(p *grammar.PDA, q, l, k int) string {
	top := "⊥"
	if k < p.L() {
		top = string(p.Alphabet[k])
	}
	return fmt.Sprintf("%s -%c,%s-> %s noop", p.States[q], p.Alphabet[l], top, program.DeadName(p))
}

// Hinted marks the inputs of syms (then the end marker) whose state
// transition the hint of the given level programs; they are presented once
// (S(t) = 1, paper eq. 6). Hint 1 programs no state transition. Hint 2
// programs the moves into and within the dead state (the PDA has no
// transition) and acceptance at the end marker.
func Hinted(p *grammar.PDA, level int, syms []int) []bool {
	if level < 2 {
		return nil
	}
	h := make([]bool, len(syms)+1)
	c := grammar.Config{State: p.Start}
	for t, l := range syms {
		if _, ok := p.Step(&c, l); !ok {
			h[t] = true // entering or staying in the dead state
		}
	}
	h[len(syms)] = p.Accepting(c)
	return h
}

// DiesAt returns the 1-based position of the symbol at which the PDA has no
// transition (the first point where the string becomes illegal whatever
// follows), or 0 if it never dies. It is the oracle of the dead-state hint.
func DiesAt(p *grammar.PDA, syms []int) int {
	c := grammar.Config{State: p.Start}
	for t, l := range syms {
		if _, ok := p.Step(&c, l); !ok {
			return t + 1
		}
	}
	return 0
}
