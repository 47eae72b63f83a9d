package grammar

import (
	"testing"
	"unicode/utf8"
)

// symbolPDA is the one-state PDA over the symbols s, named name, with a
// state named state.
func symbolPDA(t testing.TB, name, state string, s ...rune) *PDA {
	t.Helper()
	p, err := New(PDA{Name: name, Alphabet: s, States: []string{state}, Accept: []bool{true},
		Transitions: []Transition{{From: 0, Input: 0, Top: TopAny, To: 0, Op: Push}}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMarshalSpecEverySymbol: every symbol New accepts in the basic plane
// (and astral ones sampled) reads back from MarshalSpec, as do names and
// states made of them: the YAML line breaks NEL, LS and PS used to fold
// into a space in a single-quoted scalar ("symbol " " cannot be used"),
// and C1 controls made the file unreadable. The symbols go 200 to a PDA.
func TestMarshalSpecEverySymbol(t *testing.T) {
	var syms []rune
	flush := func() {
		if len(syms) == 0 {
			return
		}
		s := string(syms)
		p := symbolPDA(t, "n"+s, "q"+s, syms...)
		data := p.MarshalSpec("c" + s)
		q, err := Parse("x.yaml", data)
		if err == nil {
			err = specEqual(p, q)
		}
		if err != nil {
			t.Errorf("symbols %U to %U: %v", syms[0], syms[len(syms)-1], err)
		}
		syms = syms[:0]
	}
	add := func(r rune) {
		if checkSymbol(r) == nil && utf8.ValidRune(r) {
			if syms = append(syms, r); len(syms) == 200 {
				flush()
			}
		}
	}
	for r := rune(0); r < 0x10000; r++ {
		add(r)
	}
	for r := rune(0x10000); r < utf8.MaxRune; r += 0x3ff {
		add(r)
	}
	add(utf8.MaxRune)
	flush()
}

// TestMarshalSpecCommentCannotInject: a comment holding any YAML line
// break (LF, CR, CRLF, NEL, LS, PS) or control stays a comment: the file
// reads back as the same PDA, with no field the comment spelled out.
func TestMarshalSpecCommentCannotInject(t *testing.T) {
	p := symbolPDA(t, "n", "q0", 'a')
	for _, brk := range []string{"\n", "\r", "\r\n", "\u0085", "\u2028", "\u2029", "\x00", "\x1b", "\u0080", "\ufeff", "\xff"} {
		data := p.MarshalSpec("from x" + brk + "accept_empty_stack: true" + brk + "name: injected")
		q, err := Parse("x.yaml", data)
		if err != nil {
			t.Errorf("break %q: %v\n%s", brk, err, data)
			continue
		}
		if err := specEqual(p, q); err != nil || q.EmptyStack || q.Name != "n" {
			t.Errorf("break %q: the comment changed the PDA (%v)\n%s", brk, err, data)
		}
	}
}
