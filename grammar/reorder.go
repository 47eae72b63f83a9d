package grammar

import (
	"fmt"
	"slices"
)

// AlphabetDiff returns the symbols only in a and those only in b, each in
// its alphabet's order: both empty when a and b hold the same symbols
// (perhaps in another order).
func AlphabetDiff(a, b []rune) (onlyA, onlyB []rune) {
	for _, r := range a {
		if !slices.Contains(b, r) {
			onlyA = append(onlyA, r)
		}
	}
	for _, r := range b {
		if !slices.Contains(a, r) {
			onlyB = append(onlyB, r)
		}
	}
	return onlyA, onlyB
}

// Reordered returns p with its alphabet in the given order, which must hold
// the same symbols: the same automaton, its symbol indices (inputs, tops,
// accepting tops) renumbered. It lets a machine whose symbol indices follow
// another order (a network learned from data, its alphabet sorted) step p
// with its own indices.
func (p *PDA) Reordered(order []rune) (*PDA, error) {
	if onlyOrder, onlyP := AlphabetDiff(order, p.Alphabet); len(onlyOrder)+len(onlyP) > 0 || len(order) != len(p.Alphabet) {
		return nil, fmt.Errorf("alphabet %q is not an order of %q", string(order), string(p.Alphabet))
	}
	if slices.Equal(order, p.Alphabet) {
		return p, nil
	}
	to := make([]int, len(p.Alphabet)) // old index -> new index
	for i, r := range p.Alphabet {
		to[i] = slices.Index(order, r)
	}
	top := func(k int) int {
		if k < 0 {
			return k // TopEmpty, TopAny
		}
		return to[k]
	}
	q := PDA{Name: p.Name, Alphabet: slices.Clone(order), States: p.States, Start: p.Start,
		Accept: p.Accept, EmptyStack: p.EmptyStack}
	for _, tops := range p.AcceptTops {
		ks := make([]int, len(tops))
		for i, k := range tops {
			ks[i] = top(k)
		}
		q.AcceptTops = append(q.AcceptTops, ks)
	}
	q.Transitions = make([]Transition, len(p.Transitions))
	for i, t := range p.Transitions {
		t.Input, t.Top = to[t.Input], top(t.Top)
		q.Transitions[i] = t
	}
	return New(q)
}
