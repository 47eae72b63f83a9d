package program

import (
	"fmt"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
)

// Second-order action gadgets. A gadget is an action neuron that must fire
// (+1 or −1) for one input symbol under a set of tops, and stay in the no-op
// band otherwise. Its pre-activation from source neuron n is
// h·Σ_{k∈K} r_k + (h−β if the input matches, else −β); the values below keep
// every case at least ≈0.06 from the thresholds for all read values in the
// paper's training intervals (see FeasibleHA for the intervals).
const (
	pushH, pushBeta = 0.22, 0.09
	popH, popBeta   = 0.18, 0.10
	// inputOnly is the weight of an action that depends on the input alone.
	inputOnly = 0.5
)

// key identifies a second-order neuron: PDA state q entered on input l
// (l = −1 for the start neuron, q = −1 for the accept neuron).
type key struct{ q, l int }

// second programs a second-order network. Neurons are created breadth-first
// from the start: neuron (q', l) is PDA state q' entered on input l. From
// source neuron n in state q, the transitions on input l into q' under the
// tops K' give
//
//	Ws[(q',l), n, read k] = +H for k in K',   Ws[(q',l), n, input l] = +H,
//	bs = −1.5H,
//
// so (q', l) fires only when both its top weight and its input weight are on.
func (c *compiler) second() {
	p, H := c.p, c.opt.H
	L, R := p.L(), p.L()+1
	ids := map[key]int{}
	var keys []key
	neuron := func(k key) int {
		if id, ok := ids[k]; ok {
			return id
		}
		ids[k] = len(keys)
		keys = append(keys, k)
		c.prog.Neurons = append(c.prog.Neurons, c.neuronName(k))
		return len(keys) - 1
	}
	neuron(key{p.Start, -1})
	acc := key{-1, L}
	c.actions = L
	// A state's targets, their rules and their Wheres are made once and
	// shared by its neurons (up to one per input symbol).
	byState := map[int][][]target{}
	for n := 0; n < len(keys); n++ {
		q := keys[n].q
		if q < 0 {
			continue
		}
		if byState[q] == nil {
			byState[q] = make([][]target, L)
			for l := range L {
				byState[q][l] = c.targets(q, l)
			}
		}
		for l := 0; l < L; l++ {
			for _, to := range byState[q][l] {
				i := neuron(key{to.q, l})
				for _, k := range to.tops {
					c.set(Set{Kind: StateRule, Tensor: nspda.TWs, I: i, J: n, K: k, L: -1, Value: H, IntoDead: to.q == c.dead, Rule: to.rules[k], From: to.from[k]})
				}
				// The input weight serves every top; it is filed under the first.
				k0 := to.tops[0]
				c.set(Set{Kind: StateRule, Tensor: nspda.TWs, I: i, J: n, K: R + l, L: -1, Value: H, IntoDead: to.q == c.dead, Rule: to.rules[k0], From: to.from[k0]})
			}
		}
		c.actionsSecond(n, q)
		// The accept neuron is a conjunction like any other: read of a top
		// with which q accepts, and input $.
		if tops := acceptTops(p, q); len(tops) > 0 {
			i := neuron(acc)
			r := p.States[q] + " accepts at $"
			for _, k := range tops {
				c.set(Set{Kind: AcceptRule, Tensor: nspda.TWs, I: i, J: n, K: k, L: -1, Value: H, Rule: r})
			}
			c.set(Set{Kind: AcceptRule, Tensor: nspda.TWs, I: i, J: n, K: R + L, L: -1, Value: H, Rule: r})
		}
	}
	neuron(acc) // present even when no state accepts
	c.biases(-1.5 * H)
}

// target is a next state reached from one state on one input, and the tops
// under which it is, with each top's rule and Where.
type target struct {
	q     int
	tops  []int
	rules map[int]string
	from  map[int]*Where
}

// targets groups the transitions from q on l by next state, in state order.
func (c *compiler) targets(q, l int) []target {
	p := c.p
	by := map[int]*target{}
	for k := 0; k <= p.L(); k++ {
		t, ok := p.Lookup(q, l, k)
		if !ok {
			continue
		}
		g := by[t.To]
		if g == nil {
			g = &target{q: t.To, rules: map[int]string{}, from: map[int]*Where{}}
			by[t.To] = g
		}
		g.tops = append(g.tops, k)
		g.rules[k] = rule(p, q, l, k, t)
		g.from[k] = &Where{q, l, k}
	}
	out := make([]target, 0, len(by))
	for _, q2 := range sortedKeys(by) {
		out = append(out, *by[q2])
	}
	return out
}

// actionsSecond programs the stack operations from source neuron n (PDA state
// q). When every defined transition on input l has the same operation, one
// weight on input l of action neuron l does it. When the operation depends on
// the top, each operation gets a gadget on an action neuron of its own
// (among this source's), added past the L default neurons if needed
// (planActions).
func (c *compiler) actionsSecond(n, q int) {
	p := c.p
	R := p.L() + 1
	only, gadgets := planActions(p.L(), p.Lookup, q)
	for l, op := range only {
		if op == grammar.Noop {
			continue
		}
		v := inputOnly
		if op == grammar.Pop {
			v = -inputOnly
		}
		c.set(Set{Kind: ActionRule, Tensor: nspda.TWa, I: l, J: n, K: R + l, L: -1, Value: v, Rule: fmt.Sprintf("%s on %s: %s", p.States[q], symName(p, l), op)})
	}
	for _, g := range gadgets {
		c.actions = max(c.actions, g.a+1)
		c.gadget(g.a, n, q, g.l, g.op, g.tops)
	}
}

// gadget programs action neuron a to fire op from source n exactly when the
// input is l and the top is one of tops.
func (c *compiler) gadget(a, n, q, l int, op grammar.Op, tops []int) {
	p := c.p
	h, beta := pushH, pushBeta
	if op == grammar.Pop {
		h, beta = -popH, -popBeta
	}
	R := p.L() + 1
	r := fmt.Sprintf("%s on %s: %s under tops %s", p.States[q], symName(p, l), op, topList(p, tops))
	for _, k := range tops {
		c.set(Set{Kind: ActionRule, Tensor: nspda.TWa, I: a, J: n, K: k, L: -1, Value: h, Rule: r})
	}
	for x := 0; x <= p.L(); x++ {
		v := -beta
		if x == l {
			v = h - beta
		}
		c.set(Set{Kind: ActionRule, Tensor: nspda.TWa, I: a, J: n, K: R + x, L: -1, Value: v, Rule: r})
	}
}

func topList(p *grammar.PDA, tops []int) string {
	s := "{"
	for i, k := range tops {
		if i > 0 {
			s += ","
		}
		s += readName(p, k)
	}
	return s + "}"
}

func (c *compiler) neuronName(k key) string {
	switch {
	case k.q < 0:
		return "accept"
	case k.l < 0:
		return c.p.States[k.q]
	}
	return c.p.States[k.q] + "/" + symName(c.p, k.l)
}
