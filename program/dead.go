package program

import "github.com/nspda/nspda/grammar"

// complete returns p with an added non-accepting dead state that every
// missing transition enters (with a no-op) and that loops on every input.
// The completed PDA accepts exactly the same strings.
func complete(p *grammar.PDA) (*grammar.PDA, error) {
	name := DeadName(p)
	L := p.L()
	q := grammar.PDA{
		Name: p.Name, Alphabet: p.Alphabet, Start: p.Start, EmptyStack: p.EmptyStack,
		States:      append(append([]string(nil), p.States...), name),
		Accept:      append(append([]bool(nil), p.Accept...), false),
		AcceptTops:  append(append([][]int(nil), p.AcceptTops...), nil),
		Transitions: append([]grammar.Transition(nil), p.Transitions...),
	}
	dead := len(q.States) - 1
	for s := 0; s < p.M(); s++ {
		for l := 0; l < L; l++ {
			for k := 0; k <= L; k++ {
				if _, ok := p.Lookup(s, l, k); ok {
					continue
				}
				top := k
				if k == L {
					top = grammar.TopEmpty
				}
				q.Transitions = append(q.Transitions, grammar.Transition{From: s, Input: l, Top: top, To: dead, Op: grammar.Noop})
			}
		}
	}
	for l := 0; l < L; l++ {
		q.Transitions = append(q.Transitions, grammar.Transition{From: dead, Input: l, Top: grammar.TopAny, To: dead, Op: grammar.Noop})
	}
	return grammar.New(q)
}

func taken(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// DeadName is the name Options.Dead gives the added dead state: "dead", with
// primes added while p already has a state of that name.
func DeadName(p *grammar.PDA) string {
	name := "dead"
	for taken(p.States, name) {
		name += "'"
	}
	return name
}
