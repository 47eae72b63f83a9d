package grammar

import (
	"fmt"
	"os"
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
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Parse(f, data)
		if err != nil {
			t.Fatal(err)
		}
		pdas = append(pdas, p)
	}
	// Names and symbols that need quoting in YAML.
	odd, err := New(PDA{
		Name: "it's [odd]", Alphabet: []rune{'[', '\'', ','}, States: []string{"a b", "empty", "#x"},
		Accept: []bool{false, true, false}, EmptyStack: false,
		Transitions: []Transition{
			{From: 0, Input: 0, Top: TopAny, To: 1, Op: Push},
			{From: 1, Input: 1, Top: 0, To: 2, Op: Pop},
			{From: 2, Input: 2, Top: TopEmpty, To: 1, Op: Noop},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	pdas = append(pdas, odd)
	for _, p := range pdas {
		data := p.MarshalSpec("written by a test", "second comment")
		q, err := Parse("x.yaml", data)
		if err != nil {
			t.Fatalf("%s: Parse(MarshalSpec): %v\n%s", p.Name, err, data)
		}
		if err := specEqual(p, q); err != nil {
			t.Errorf("%s: %v\n%s", p.Name, err, data)
		}
	}
}
