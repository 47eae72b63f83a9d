package train

import (
	"fmt"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/program"
)

// Hints are partial knowledge of the PDA programmed into the network before
// training (paper Sec. 4; NOTES.md section 6). The paper does not define its
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
func HintProgram(p *grammar.PDA, order nspda.Order, level int, h float64) (*program.Program, error) {
	if level < 0 || level > 2 {
		return nil, fmt.Errorf("hint level must be 0, 1 or 2, not %d", level)
	}
	prog, err := program.Compile(p, program.Options{Order: order, Dead: level == 2, H: h})
	if err != nil {
		return nil, err
	}
	return prog.Select(func(s program.Set) bool {
		switch {
		case level == 0:
			return false
		case s.Kind == program.ActionRule:
			return true
		case level == 1:
			return false
		}
		return s.IntoDead || s.Kind == program.AcceptRule || s.Kind == program.BiasRule
	}), nil
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
