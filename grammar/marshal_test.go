package grammar

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// specEqual reports how p and q differ as automata, comparing states by name.
func specEqual(p, q *PDA) error {
	switch {
	case p.Name != q.Name:
		return fmt.Errorf("name %q, want %q", q.Name, p.Name)
	case !slices.Equal(p.Alphabet, q.Alphabet):
		return fmt.Errorf("alphabet %q, want %q", string(q.Alphabet), string(p.Alphabet))
	case p.States[p.Start] != q.States[q.Start]:
		return fmt.Errorf("start %q, want %q", q.States[q.Start], p.States[p.Start])
	case p.EmptyStack != q.EmptyStack:
		return fmt.Errorf("accept_empty_stack %v, want %v", q.EmptyStack, p.EmptyStack)
	case len(p.Transitions) != len(q.Transitions):
		return fmt.Errorf("%d transitions, want %d", len(q.Transitions), len(p.Transitions))
	}
	for i, t := range p.Transitions {
		u := q.Transitions[i]
		if p.States[t.From] != q.States[u.From] || p.States[t.To] != q.States[u.To] ||
			t.Input != u.Input || t.Top != u.Top || t.Op != u.Op {
			return fmt.Errorf("transition %d differs", i)
		}
	}
	for i, name := range q.States {
		j := slices.Index(p.States, name)
		if j < 0 || p.Accept[j] != q.Accept[i] {
			return fmt.Errorf("state %q: accept differs or state unknown", name)
		}
		if !slices.Equal(p.AcceptTops[j], q.AcceptTops[i]) {
			return fmt.Errorf("state %q: accept_with_top %v, want %v", name, q.AcceptTops[i], p.AcceptTops[j])
		}
	}
	return nil
}

func TestMarshalSpecRoundTrip(t *testing.T) {
	var pdas []*PDA
	for _, name := range Names() {
		l, _ := Builtin(name)
		pdas = append(pdas, l.PDA)
	}
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, f := range files {
		pdas = append(pdas, parseFile(t, f))
	}
	for _, spec := range []PDA{
		// Names and symbols that need quoting in YAML.
		{
			Name: "it's [odd]", Alphabet: []rune{'[', '\'', ','}, States: []string{"a b", "empty", "#x"},
			Accept: []bool{false, true, false}, EmptyStack: false,
			Transitions: []Transition{
				{From: 0, Input: 0, Top: TopAny, To: 1, Op: Push},
				{From: 1, Input: 1, Top: 0, To: 2, Op: Pop},
				{From: 2, Input: 2, Top: TopEmpty, To: 1, Op: Noop},
			},
		},
		// Top-dependent acceptance, with states named like tops and quoted symbols.
		{
			Name: "tops", Alphabet: []rune{'[', '\'', 'e'}, States: []string{"any", "empty", "e", "x"},
			Accept: []bool{false, true, false, false}, EmptyStack: true,
			AcceptTops: [][]int{{1, TopEmpty}, {0, 2}, {TopAny}, nil},
			Transitions: []Transition{
				{From: 0, Input: 0, Top: TopAny, To: 1, Op: Push},
				{From: 1, Input: 1, Top: 0, To: 2, Op: Pop},
				{From: 2, Input: 2, Top: TopEmpty, To: 0, Op: Noop},
			},
		},
	} {
		p, err := New(spec)
		if err != nil {
			t.Fatal(err)
		}
		pdas = append(pdas, p)
	}
	rng := rand.New(rand.NewPCG(27, 28))
	for len(pdas) < 40 {
		p := randomTopPDA(rng, 1+rng.IntN(4), 1+rng.IntN(3))
		if slices.ContainsFunc(p.Transitions, func(t Transition) bool { return t.From == p.Start }) {
			pdas = append(pdas, p) // a spec file needs a transition from its start
		}
	}
	for _, p := range pdas {
		data := p.MarshalSpec("written by a test", "second comment")
		q, err := Parse("x.yaml", data)
		if err != nil {
			t.Fatalf("%s: Parse(MarshalSpec): %v\n%s", p.Name, err, data)
		}
		if err := specEqual(p, q); err != nil {
			t.Errorf("%s: %v\n%s", p.Name, err, data)
		}
		// Parse numbers states by first appearance, so the text may change
		// once; from then on it is a fixpoint.
		again := q.MarshalSpec()
		if r, err := Parse("y.yaml", again); err != nil || string(r.MarshalSpec()) != string(again) {
			t.Errorf("%s: MarshalSpec is not a fixpoint of Parse after one round (%v):\n%s", p.Name, err, again)
		}
	}
}
