package grammar

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestReordered: a PDA with its alphabet in another order accepts exactly
// the strings the original accepts, every built-in language, on random
// strings and members.
func TestReordered(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range Names() {
		lang, _ := Builtin(name)
		p := lang.PDA
		order := slices.Clone(p.Alphabet)
		slices.Reverse(order)
		q, err := p.Reordered(order)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if string(q.Alphabet) != string(order) || string(p.Alphabet) == string(order) && len(order) > 1 {
			t.Fatalf("%s: alphabet %q, want %q (original %q)", name, string(q.Alphabet), string(order), string(p.Alphabet))
		}
		for i := range 400 {
			var b strings.Builder
			n := rng.IntN(16)
			if s, ok := lang.Sample(rng, n+1); ok && i%2 == 0 {
				b.WriteString(s)
			} else {
				for range n {
					b.WriteRune(p.Alphabet[rng.IntN(p.L())])
				}
			}
			s := b.String()
			if p.Accepts(s) != q.Accepts(s) {
				t.Errorf("%s: %q: original %v, reordered %v", name, s, p.Accepts(s), q.Accepts(s))
			}
		}
	}
}

// TestReorderedRefusesOtherSymbols: another set of symbols is no order of
// the alphabet, and AlphabetDiff names the symbols that differ.
func TestReorderedRefusesOtherSymbols(t *testing.T) {
	lang, _ := Builtin("anbn")
	if _, err := lang.PDA.Reordered([]rune("bc")); err == nil {
		t.Error(`Reordered("bc") of "ab": no error`)
	}
	if _, err := lang.PDA.Reordered([]rune("b")); err == nil {
		t.Error(`Reordered("b") of "ab": no error`)
	}
	if a, b := AlphabetDiff([]rune("bcd"), []rune("ab")); string(a) != "cd" || string(b) != "a" {
		t.Errorf("AlphabetDiff(bcd, ab): %q, %q; want cd, a", string(a), string(b))
	}
	if a, b := AlphabetDiff([]rune("ba"), []rune("ab")); a != nil || b != nil {
		t.Errorf("AlphabetDiff of two orders: %q, %q", string(a), string(b))
	}
}
