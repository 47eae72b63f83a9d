package program

import (
	"fmt"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
)

// Hints are partial knowledge of the PDA programmed into the network before
// training (paper Sec. 4; docs/design.md section 5, "Hints"). The paper does
// not define its Hint #1 and Hint #2; ours (docs/design.md):
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
func HintProgram(p *grammar.PDA, order nspda.Order, level int, h float64, refine int) (*Program, error) {
	if level < 0 || level > 2 {
		return nil, fmt.Errorf("hint level must be 0, 1 or 2, not %d", level)
	}
	prog, err := Compile(p, Options{Order: order, Dead: level == 2, H: h})
	if err != nil {
		return nil, err
	}
	reentry := reentries(p)
	return prog.Select(func(s Set) bool {
		switch {
		case level == 0:
			return false
		case s.Kind == ActionRule:
			return true
		case level == 1:
			return false
		}
		if s.IntoDead && refine > 1 && s.From != nil && reentry[*s.From] {
			return false
		}
		return s.IntoDead || s.Kind == AcceptRule || s.Kind == BiasRule
	}), nil
}

// reentries returns where the missing transitions (q', a, k) are that
// refinement would meet right after a transition δ(q, a, k) = q'. In the PDA
// completed with a dead state they are the transitions into it from there.
func reentries(p *grammar.PDA) map[Where]bool {
	out := map[Where]bool{}
	L := p.L()
	for q := 0; q < p.M(); q++ {
		for l := 0; l < L; l++ {
			for k := 0; k <= L; k++ {
				t, ok := p.Lookup(q, l, k)
				if !ok {
					continue
				}
				if _, ok := p.Lookup(t.To, l, k); !ok {
					out[Where{t.To, l, k}] = true
				}
			}
		}
	}
	return out
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
