package dataset

import (
	"math/rand/v2"
	"strings"

	"github.com/nspda/nspda/grammar"
)

// Small languages written here so that the tests do not depend on the
// grammar package's built-ins.

func anbn() *grammar.Language {
	return &grammar.Language{
		Name: "anbn",
		Recognize: func(s string) bool {
			n := len(s) / 2
			return n >= 1 && len(s) == 2*n && s == strings.Repeat("a", n)+strings.Repeat("b", n)
		},
		Sample: func(_ *rand.Rand, n int) (string, bool) {
			if n < 2 || n%2 != 0 {
				return "", false
			}
			return strings.Repeat("a", n/2) + strings.Repeat("b", n/2), true
		},
	}
}

func dyck2() *grammar.Language {
	return &grammar.Language{Name: "dyck2", Recognize: isDyck2, Sample: sampleDyck2}
}

func isDyck2(s string) bool {
	var stack []rune
	for _, r := range s {
		switch r {
		case '(', '[':
			stack = append(stack, r)
		case ')', ']':
			open := '('
			if r == ']' {
				open = '['
			}
			if len(stack) == 0 || stack[len(stack)-1] != open {
				return false
			}
			stack = stack[:len(stack)-1]
		default:
			return false
		}
	}
	return len(s) > 0 && len(stack) == 0
}

// sampleDyck2 builds a balanced string left to right, opening or closing with
// even odds where both keep the string completable.
func sampleDyck2(rng *rand.Rand, n int) (string, bool) {
	if n < 2 || n%2 != 0 {
		return "", false
	}
	var b strings.Builder
	var stack []byte
	for left := n; left > 0; left-- {
		canOpen := len(stack) < left-1
		if canOpen && (len(stack) == 0 || rng.IntN(2) == 0) {
			c := "(["[rng.IntN(2)]
			stack = append(stack, c)
			b.WriteByte(c)
			continue
		}
		if stack[len(stack)-1] == '(' {
			b.WriteByte(')')
		} else {
			b.WriteByte(']')
		}
		stack = stack[:len(stack)-1]
	}
	return b.String(), true
}

// allStrings is Σ* over {a,b}: it has no negatives at all.
func allStrings() *grammar.Language {
	return &grammar.Language{
		Name:      "all",
		Recognize: func(s string) bool { return strings.Trim(s, "ab") == "" },
		Sample: func(rng *rand.Rand, n int) (string, bool) {
			b := make([]byte, n)
			for i := range b {
				b[i] = "ab"[rng.IntN(2)]
			}
			return string(b), true
		},
	}
}

// liar's sampler returns strings its recognizer rejects.
func liar() *grammar.Language {
	l := anbn()
	l.Name = "liar"
	l.Sample = func(_ *rand.Rand, n int) (string, bool) { return strings.Repeat("b", n), true }
	return l
}

// testLanguages are the languages every protocol test runs over.
func testLanguages() []*grammar.Language {
	return []*grammar.Language{anbn(), dyck2()}
}
