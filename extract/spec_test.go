package extract

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/nn/nntest"
)

// TestSameAutomaton: the read-back check of Spec sees every way a spec
// could read back as another automaton.
func TestSameAutomaton(t *testing.T) {
	lang, _ := grammar.Builtin("anbn")
	p := lang.PDA
	if err := sameAutomaton(p, p); err != nil {
		t.Fatalf("a PDA differs from itself: %v", err)
	}
	for name, edit := range map[string]func(q *grammar.PDA){
		"name":        func(q *grammar.PDA) { q.Name = "other" },
		"alphabet":    func(q *grammar.PDA) { q.Alphabet = []rune("ba") },
		"empty stack": func(q *grammar.PDA) { q.EmptyStack = !q.EmptyStack },
		"start":       func(q *grammar.PDA) { q.States = append([]string{q.States[0] + "x"}, q.States[1:]...) },
		"accept":      func(q *grammar.PDA) { q.Accept = append([]bool{!q.Accept[0]}, q.Accept[1:]...) },
		"tops":        func(q *grammar.PDA) { q.AcceptTops = [][]int{{grammar.TopEmpty}} },
		"transitions": func(q *grammar.PDA) { q.Transitions = q.Transitions[1:] },
		"op": func(q *grammar.PDA) {
			q.Transitions = append([]grammar.Transition(nil), q.Transitions...)
			q.Transitions[0].Op = (q.Transitions[0].Op + 1) % 3
		},
	} {
		q := *p
		edit(&q)
		if err := sameAutomaton(p, &q); err == nil {
			t.Errorf("%s changed, not seen", name)
		}
	}
}

// fuzzNet is a random NSPDA (weights from seed) over the first distinct
// symbols of syms, at most three; nil when syms has none.
func fuzzNet(seed uint64, syms string) *nspda.Model {
	var alphabet []rune
	for _, r := range syms {
		if len(alphabet) < 3 && !strings.ContainsRune(string(alphabet), r) {
			alphabet = append(alphabet, r)
		}
	}
	if len(alphabet) == 0 {
		return nil
	}
	order := nspda.Second + nspda.Order(seed%2)
	m, err := nspda.New(nspda.Shape{Order: order, L: len(alphabet), J: 2 + int(seed%2), A: len(alphabet)}, alphabet)
	if err != nil {
		return nil
	}
	nntest.FillNormal(m.Params, seed, 8)
	return m
}

// FuzzExtractSpec: the PDA extracted from a random network over fuzzed
// symbols, named and commented with fuzzed text, is written (Spec) as a
// file that parses back into a PDA with the same language as the network
// and the extracted PDA on every string up to length 4; a PDA that cannot
// be written is refused with an error, never written wrong.
func FuzzExtractSpec(f *testing.F) {
	for i, s := range []string{"ab", "()[]", "\u0085a", "\u2028\u2029x", "'\"#", "[,]", "a\rb\n", "é\ufeffz", "$a", "\x00\x7f", "\xff\xfe"} {
		f.Add(uint64(i+1), s)
	}
	f.Fuzz(func(t *testing.T, seed uint64, syms string) {
		m := fuzzNet(seed, syms)
		if m == nil {
			return
		}
		name := strings.ToValidUTF8(syms, "\uFFFD")
		r := Extract(m, Options{MaxStates: 200, Name: name})
		if r.Err != nil {
			if !errors.Is(r.Err, ErrTooManyStates) || r.PDA != nil || !utf8.ValidString(r.Message) {
				t.Fatalf("error %v, message %q", r.Err, r.Message)
			}
			return // too many states, or a symbol no PDA may have
		}
		data, err := Spec(r.PDA, "from "+syms, syms)
		if err != nil {
			t.Fatalf("extracted PDA refused: %v\n%s", err, r.PDA.MarshalSpec())
		}
		back, err := grammar.Parse("x.yaml", data)
		if err != nil {
			t.Fatalf("Spec returned a file that does not parse: %v\n%s", err, data)
		}
		if back.Name != name || string(back.Alphabet) != string(m.Alphabet) {
			t.Fatalf("name %q alphabet %q read back as %q %q", name, string(m.Alphabet), back.Name, string(back.Alphabet))
		}
		c := Exhaustive(m, 1, back, r.PDA, 4)
		if len(c.NetworkCounter) > 0 || len(c.TargetCounter) > 0 {
			t.Fatalf("the PDA read back differs from the network on %v, from the extracted PDA on %v\n%s", c.NetworkCounter, c.TargetCounter, data)
		}
	})
}
