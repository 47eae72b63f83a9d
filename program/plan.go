package program

import (
	"fmt"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
)

// plan returns the shape Compile will give p's program, or an error if that
// shape is more than an NSPDA may have, before anything of the program's
// size is allocated: the settings of a network at the parameter limit take
// gigabytes, and the dead state's completion of a large PDA too. It reads p
// as completed under opt.Dead without completing it (lookup).
//
// Third order has one neuron per state plus the accept neuron and one
// action neuron per symbol. Second order has one neuron per pair (state,
// input it is entered on) reachable from the start, found breadth-first as
// second does, and its actions are counted as actionsSecond places them;
// the search stops at the first neuron too many, so that it costs at most
// the limit's J sources times L·(L+1) lookups.
func plan(p *grammar.PDA, opt Options) (nspda.Shape, error) {
	dead := 0
	if opt.Dead {
		dead = 1
	}
	s := nspda.Shape{Order: opt.Order, L: p.L(), J: p.M() + dead + 1, A: p.L()}
	if opt.Order != nspda.Second {
		return s, s.Validate()
	}
	look := completed(p, opt.Dead)
	s.J = 0
	seen := map[key]bool{}
	queue := []key{{p.Start, -1}}
	actions := map[int]int{} // by state: action neurons its source neurons use
	add := func(k key) error {
		if seen[k] {
			return nil
		}
		seen[k] = true
		queue = append(queue, k)
		s.J++
		return s.Validate()
	}
	// The accept neuron is always present.
	if err := add(key{-1, p.L()}); err != nil {
		return s, err
	}
	if err := add(queue[0]); err != nil {
		return s, err
	}
	queue = queue[1:]
	for ; len(queue) > 0; queue = queue[1:] {
		q := queue[0].q
		if q < 0 {
			continue
		}
		if _, ok := actions[q]; !ok {
			actions[q] = actionNeurons(p.L(), look, q)
			if s.A = max(s.A, actions[q]); s.Validate() != nil {
				return s, s.Validate()
			}
		}
		for l := 0; l < p.L(); l++ {
			for k := 0; k <= p.L(); k++ {
				if t, ok := look(q, l, k); ok {
					if err := add(key{t.To, l}); err != nil {
						return s, err
					}
				}
			}
		}
	}
	return s, nil
}

// lookupFunc is PDA.Lookup of a PDA, perhaps completed.
type lookupFunc func(q, l, k int) (grammar.Transition, bool)

// completed returns the lookup of p completed with a dead state (state
// p.M()) as complete builds it, if dead; else p's own.
func completed(p *grammar.PDA, dead bool) lookupFunc {
	if !dead {
		return p.Lookup
	}
	d := p.M()
	return func(q, l, k int) (grammar.Transition, bool) {
		if q < d {
			if t, ok := p.Lookup(q, l, k); ok {
				return t, true
			}
		}
		return grammar.Transition{From: q, Input: l, To: d, Op: grammar.Noop}, true
	}
}

// gadget is a second-order action that depends on the top as well as the
// input: action neuron a fires op on input l under the tops.
type gadget struct {
	a, l int
	op   grammar.Op
	tops []int
}

// planActions places the stack operations from a source neuron in state q
// (see actionsSecond): only[l] is the operation on input l when every
// defined transition on it has the same one (Noop: none), done by one
// weight on input l of action neuron l; the others are gadgets, each on an
// action neuron of its own past those.
func planActions(L int, look lookupFunc, q int) (only []grammar.Op, gadgets []gadget) {
	only = make([]grammar.Op, L)
	used := map[int]bool{}
	for l := 0; l < L; l++ {
		byOp := map[grammar.Op][]int{}
		for k := 0; k <= L; k++ {
			if t, ok := look(q, l, k); ok {
				byOp[t.Op] = append(byOp[t.Op], k)
			}
		}
		if len(byOp) == 1 {
			for op := range byOp {
				only[l] = op
				used[l] = op != grammar.Noop
			}
			continue
		}
		for _, op := range []grammar.Op{grammar.Push, grammar.Pop} {
			if tops := byOp[op]; len(tops) > 0 {
				gadgets = append(gadgets, gadget{l: l, op: op, tops: tops})
			}
		}
	}
	comp := 0
	for i := range gadgets {
		for used[comp] {
			comp++
		}
		used[comp] = true
		gadgets[i].a = comp
	}
	return only, gadgets
}

// actionNeurons is the number of action neurons a source in state q needs:
// at least L.
func actionNeurons(L int, look lookupFunc, q int) int {
	n := L
	_, gadgets := planActions(L, look, q)
	for _, g := range gadgets {
		n = max(n, g.a+1)
	}
	return n
}

// tooLarge words a plan's error.
func tooLarge(p *grammar.PDA, s nspda.Shape, err error) error {
	if s.Order == nspda.Second {
		return fmt.Errorf("%s cannot be programmed at order 2: it needs %d or more state neurons and %d or more action neurons: %v", p.Name, s.J, s.A, err)
	}
	return fmt.Errorf("%s cannot be programmed: %v", p.Name, err)
}
