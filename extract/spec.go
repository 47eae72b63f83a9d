package extract

import (
	"fmt"
	"slices"

	"github.com/nspda/nspda/grammar"
)

// Spec writes p as a spec file (grammar.MarshalSpec, after the comment
// lines) and reads it back, refusing to return text that does not parse
// into the same automaton: what extract writes, program, eval and classify
// read as extract meant it.
func Spec(p *grammar.PDA, comment ...string) ([]byte, error) {
	data := p.MarshalSpec(comment...)
	q, err := grammar.Parse("", data)
	if err == nil {
		err = sameAutomaton(p, q)
	}
	if err != nil {
		return nil, fmt.Errorf("the extracted PDA %q cannot be written as a spec file that reads back: %v", p.Name, err)
	}
	return data, nil
}

// sameAutomaton reports how q, read back from p's spec, differs from p,
// comparing states by name (Parse numbers them in order of appearance, and
// MarshalSpec leaves out states neither the start nor in a transition).
func sameAutomaton(p, q *grammar.PDA) error {
	switch {
	case p.Name != "" && p.Name != q.Name:
		return fmt.Errorf("name %q reads back as %q", p.Name, q.Name)
	case !slices.Equal(p.Alphabet, q.Alphabet):
		return fmt.Errorf("alphabet %q reads back as %q", string(p.Alphabet), string(q.Alphabet))
	case p.States[p.Start] != q.States[q.Start]:
		return fmt.Errorf("start %q reads back as %q", p.States[p.Start], q.States[q.Start])
	case p.EmptyStack != q.EmptyStack:
		return fmt.Errorf("accept_empty_stack reads back as %v", q.EmptyStack)
	case len(p.Transitions) != len(q.Transitions):
		return fmt.Errorf("%d transitions read back as %d", len(p.Transitions), len(q.Transitions))
	}
	index := make(map[string]int, p.M())
	for i, name := range p.States {
		index[name] = i
	}
	for i, t := range p.Transitions {
		u := q.Transitions[i]
		if p.States[t.From] != q.States[u.From] || p.States[t.To] != q.States[u.To] || t.Input != u.Input || t.Top != u.Top || t.Op != u.Op {
			return fmt.Errorf("transition %d reads back as another", i+1)
		}
	}
	for i, name := range q.States {
		j, ok := index[name]
		if !ok {
			return fmt.Errorf("state %q reads back, not one of the PDA's", name)
		}
		if p.Accept[j] != q.Accept[i] || !slices.Equal(sortedTops(p, j), sortedTops(q, i)) {
			return fmt.Errorf("state %q's acceptance reads back as another", name)
		}
	}
	return nil
}

// sortedTops lists state s's accept_with_top tops in increasing order.
func sortedTops(p *grammar.PDA, s int) []int {
	if s >= len(p.AcceptTops) {
		return nil
	}
	return slices.Sorted(slices.Values(p.AcceptTops[s]))
}
