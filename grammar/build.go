package grammar

import (
	"fmt"
	"strings"
)

// assemble resolves the names of a spec into indices and builds its PDA with
// New. Errors are *SpecErrors carrying the line of the offending text.
func (s *spec) assemble() (*PDA, error) {
	p := PDA{Name: s.name, EmptyStack: s.emptyStack}
	if len(s.alphabet) == 0 {
		return nil, lineErrorf(s.line, "alphabet is empty")
	}
	for _, f := range s.alphabet {
		r, err := s.symbol(f, p.Alphabet)
		if err != nil {
			return nil, err
		}
		p.Alphabet = append(p.Alphabet, r)
	}
	states := map[string]int{s.start.text: 0}
	p.States = []string{s.start.text}
	state := func(name string) int {
		if q, ok := states[name]; ok {
			return q
		}
		states[name] = len(p.States)
		p.States = append(p.States, name)
		return states[name]
	}
	for _, r := range s.rows {
		t, err := s.transition(r, &p, state)
		if err != nil {
			return nil, err
		}
		p.Transitions = append(p.Transitions, t)
	}
	if err := s.checkStart(p.Transitions); err != nil {
		return nil, err
	}
	accept, err := s.acceptStates(states)
	if err != nil {
		return nil, err
	}
	p.Accept = accept
	if p.AcceptTops, err = s.topsOf(&p, states); err != nil {
		return nil, err
	}
	return New(p)
}

// checkStart refuses a start state (index 0) that no transition leaves:
// every other state would be unreachable, so it is most likely a typo.
func (s *spec) checkStart(ts []Transition) error {
	for _, t := range ts {
		if t.From == 0 {
			return nil
		}
	}
	return lineErrorf(s.start.line, "start state %q has no transition from it", s.start.text)
}

// symbol checks that f names one new, usable symbol.
func (s *spec) symbol(f field, seen []rune) (rune, error) {
	rs := []rune(f.text)
	if len(rs) != 1 {
		return 0, lineErrorf(f.line, "symbol %q must be a single character", f.text)
	}
	if err := checkSymbol(rs[0]); err != nil {
		return 0, lineErrorf(f.line, "%v", err)
	}
	for _, r := range seen {
		if r == rs[0] {
			return 0, lineErrorf(f.line, "symbol %q appears twice in the alphabet", f.text)
		}
	}
	return rs[0], nil
}

// transition resolves row r of the spec; state returns a state's index,
// adding it if it is new.
func (s *spec) transition(r row, p *PDA, state func(string) int) (Transition, error) {
	from, in, top, to, op := r.f[0], r.f[1], r.f[2], r.f[3], r.f[4]
	t := Transition{From: state(from.text), Line: r.line}
	t.Input = indexOf(p.Alphabet, in.text)
	if t.Input < 0 {
		return t, lineErrorf(in.line, "unknown symbol %q in transition (alphabet is %s)", in.text, p.AlphabetString())
	}
	switch top.text {
	case "empty":
		t.Top = TopEmpty
	case "any":
		t.Top = TopAny
	default:
		if t.Top = indexOf(p.Alphabet, top.text); t.Top < 0 {
			return t, lineErrorf(top.line, "unknown top %q in transition (want a symbol of %s, empty or any)",
				top.text, p.AlphabetString())
		}
	}
	t.To = state(to.text)
	switch op.text {
	case "push":
		t.Op = Push
	case "pop":
		t.Op = Pop
	case "noop":
		t.Op = Noop
	default:
		return t, lineErrorf(op.line, "unknown op %q (want push, pop or noop)", op.text)
	}
	return t, nil
}

func indexOf(alphabet []rune, sym string) int {
	for i, r := range alphabet {
		if string(r) == sym {
			return i
		}
	}
	return -1
}

// acceptStates turns the accept list into PDA.Accept.
func (s *spec) acceptStates(states map[string]int) ([]bool, error) {
	accept := make([]bool, len(states))
	for _, f := range s.accept {
		q, ok := states[f.text]
		if !ok {
			return nil, lineErrorf(f.line, "accept state %q is neither the start state nor used by any transition", f.text)
		}
		if accept[q] {
			return nil, lineErrorf(f.line, "accept state %q is listed twice", f.text)
		}
		accept[q] = true
	}
	return accept, nil
}

// topsOf resolves accept_with_top into PDA.AcceptTops (p's alphabet,
// states and Accept are set), checking each top as New would, with its line.
func (s *spec) topsOf(p *PDA, states map[string]int) ([][]int, error) {
	if len(s.acceptTops) == 0 {
		return nil, nil
	}
	tops := make([][]int, len(states))
	check := *p
	check.AcceptTops = tops
	for _, at := range s.acceptTops {
		q, ok := states[at.state.text]
		if !ok {
			return nil, lineErrorf(at.state.line, "state %q in accept_with_top is neither the start state nor used by any transition", at.state.text)
		}
		for _, f := range at.tops {
			var k int
			switch f.text {
			case "empty":
				k = TopEmpty
			case "any":
				k = TopAny
			default:
				if k = indexOf(p.Alphabet, f.text); k < 0 {
					return nil, lineErrorf(f.line, "unknown top %q for state %q in accept_with_top (want a symbol of %s, empty or any)",
						f.text, at.state.text, p.AlphabetString())
				}
			}
			tops[q] = append(tops[q], k)
			if msg := check.acceptTopProblem(q, len(tops[q])-1); msg != "" {
				return nil, lineErrorf(f.line, "accept_with_top: %s", msg)
			}
		}
	}
	return tops, nil
}

// mustPDA builds a built-in PDA from compact rules "from input top to op",
// the same words as a spec file's transitions. It panics on an error, which
// is a bug in this package.
func mustPDA(name, alphabet, start string, accept []string, emptyStack bool, rules ...string) *PDA {
	s := &spec{name: name, start: field{text: start}, emptyStack: emptyStack}
	for _, r := range alphabet {
		s.alphabet = append(s.alphabet, field{text: string(r)})
	}
	for _, a := range accept {
		s.accept = append(s.accept, field{text: a})
	}
	for _, rule := range rules {
		words := strings.Fields(rule)
		if len(words) != 5 {
			panic(fmt.Sprintf("grammar: built-in %s: bad rule %q", name, rule))
		}
		var r row
		for i, w := range words {
			r.f[i] = field{text: w}
		}
		s.rows = append(s.rows, r)
	}
	p, err := s.assemble()
	if err != nil {
		panic(fmt.Sprintf("grammar: built-in %s: %v", name, err))
	}
	return p
}
