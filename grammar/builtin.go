package grammar

import (
	"math/rand/v2"
	"strings"
)

// The paper's five benchmark languages (Sec. 5), in its order. Each PDA is
// deterministic; each recognizer is written from the language's definition,
// not from the PDA, so that tests comparing the two check both.
var builtins = []*Language{
	{
		Name:        "palindrome",
		Description: "w c w^R with w over {a,b} (the deterministic palindrome)",
		PDA: mustPDA("palindrome", "abc", "q0", []string{"q1"}, true,
			"q0 a any q0 push",
			"q0 b any q0 push",
			"q0 c any q1 noop",
			"q1 a a   q1 pop",
			"q1 b b   q1 pop"),
		Recognize: isPalindrome,
		Sample:    samplePalindrome,
	},
	{
		Name:        "anbn",
		Description: "a^n b^n, n >= 1",
		PDA: mustPDA("anbn", "ab", "q0", []string{"q2"}, true,
			"q0 a empty q1 push",
			"q1 a a     q1 push",
			"q1 b a     q2 pop",
			"q2 b a     q2 pop"),
		Recognize: isAnBn,
		Sample:    sampleAnBn,
	},
	{
		Name:        "anbncbmam",
		Description: "a^n b^n c b^m a^m, n, m >= 1",
		PDA: mustPDA("anbncbmam", "abc", "q0", []string{"q5"}, true,
			"q0 a empty q1 push",
			"q1 a a     q1 push",
			"q1 b a     q2 pop",
			"q2 b a     q2 pop",
			"q2 c empty q3 noop",
			"q3 b empty q4 push",
			"q4 b b     q4 push",
			"q4 a b     q5 pop",
			"q5 a b     q5 pop"),
		Recognize: isAnBnCBmAm,
		Sample:    sampleAnBnCBmAm,
	},
	{
		Name:        "anmbncm",
		Description: "a^(n+m) b^n c^m, n, m >= 1",
		PDA: mustPDA("anmbncm", "abc", "q0", []string{"q3"}, true,
			"q0 a empty q1 push",
			"q1 a a     q1 push",
			"q1 b a     q2 pop",
			"q2 b a     q2 pop",
			"q2 c a     q3 pop",
			"q3 c a     q3 pop"),
		Recognize: isAnmBnCm,
		Sample:    sampleAnmBnCm,
	},
	{
		Name:        "dyck2",
		Description: "non-empty balanced strings over ( ) [ ] (Dyck-2)",
		PDA: mustPDA("dyck2", "()[]", "q0", []string{"q1"}, true,
			"q0 ( empty q1 push",
			"q0 [ empty q1 push",
			"q1 ( any   q1 push",
			"q1 [ any   q1 push",
			"q1 ) (     q1 pop",
			"q1 ] [     q1 pop"),
		Recognize: isDyck2,
		Sample:    sampleDyck2,
	},
}

// Builtin returns the built-in language called name (one of Names) and
// whether there is one. Each call returns a new Language; its PDA is shared
// and must not be modified.
func Builtin(name string) (*Language, bool) {
	for _, l := range builtins {
		if l.Name == name {
			c := *l
			return &c, true
		}
	}
	return nil, false
}

// Names lists the built-in languages in the paper's order: palindrome, anbn,
// anbncbmam, anmbncm, dyck2.
func Names() []string {
	names := make([]string, len(builtins))
	for i, l := range builtins {
		names[i] = l.Name
	}
	return names
}

// isPalindrome recognizes w c w^R, w in {a,b}*.
func isPalindrome(s string) bool {
	n := len(s)
	if n%2 == 0 || s[n/2] != 'c' {
		return false
	}
	w, rest := s[:n/2], s[n/2+1:]
	return onlyOf(w, "ab") && w == reverse(rest)
}

// isAnBn recognizes a^n b^n, n >= 1.
func isAnBn(s string) bool {
	n := len(s) / 2
	return n >= 1 && s == strings.Repeat("a", n)+strings.Repeat("b", n)
}

// isAnBnCBmAm recognizes a^n b^n c b^m a^m, n, m >= 1: the part before the
// first c is a^n b^n and the part after it, reversed, is a^m b^m.
func isAnBnCBmAm(s string) bool {
	left, right, ok := strings.Cut(s, "c")
	return ok && isAnBn(left) && isAnBn(reverse(right))
}

// isAnmBnCm recognizes a^(n+m) b^n c^m, n, m >= 1 by counting the runs.
func isAnmBnCm(s string) bool {
	a := leading(s, 'a')
	b := leading(s[a:], 'b')
	c := leading(s[a+b:], 'c')
	return a+b+c == len(s) && b >= 1 && c >= 1 && a == b+c
}

// isDyck2 recognizes non-empty balanced strings over ( ) [ ] by matching
// each closing bracket with the last unmatched opening one.
func isDyck2(s string) bool {
	var open []byte
	for i := range len(s) {
		switch c := s[i]; c {
		case '(', '[':
			open = append(open, c)
		case ')', ']':
			if len(open) == 0 || open[len(open)-1] != opening(c) {
				return false
			}
			open = open[:len(open)-1]
		default:
			return false
		}
	}
	return len(s) > 0 && len(open) == 0
}

func opening(closing byte) byte {
	if closing == ')' {
		return '('
	}
	return '['
}

func closing(opening byte) byte {
	if opening == '(' {
		return ')'
	}
	return ']'
}

// onlyOf reports whether every byte of s is one of set.
func onlyOf(s, set string) bool {
	for i := range len(s) {
		if !strings.ContainsRune(set, rune(s[i])) {
			return false
		}
	}
	return true
}

// leading counts the leading bytes of s equal to c.
func leading(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// reverse reverses s byte by byte (all built-in alphabets are ASCII).
func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// samplePalindrome draws w uniformly from {a,b}^((n-1)/2).
func samplePalindrome(rng *rand.Rand, n int) (string, bool) {
	if n < 1 || n%2 == 0 {
		return "", false
	}
	w := make([]byte, n/2)
	for i := range w {
		w[i] = "ab"[rng.IntN(2)]
	}
	return string(w) + "c" + reverse(string(w)), true
}

// sampleAnBn returns the one member of length n.
func sampleAnBn(_ *rand.Rand, n int) (string, bool) {
	if n < 2 || n%2 != 0 {
		return "", false
	}
	return strings.Repeat("a", n/2) + strings.Repeat("b", n/2), true
}

// sampleAnBnCBmAm draws n uniformly from 1..k-1 where k = n+m = (len-1)/2.
func sampleAnBnCBmAm(rng *rand.Rand, length int) (string, bool) {
	if length < 5 || length%2 == 0 {
		return "", false
	}
	k := (length - 1) / 2
	n := 1 + rng.IntN(k-1)
	m := k - n
	return strings.Repeat("a", n) + strings.Repeat("b", n) + "c" +
		strings.Repeat("b", m) + strings.Repeat("a", m), true
}

// sampleAnmBnCm draws n uniformly from 1..k-1 where k = n+m = len/2.
func sampleAnmBnCm(rng *rand.Rand, length int) (string, bool) {
	if length < 4 || length%2 != 0 {
		return "", false
	}
	k := length / 2
	n := 1 + rng.IntN(k-1)
	m := k - n
	return strings.Repeat("a", k) + strings.Repeat("b", n) + strings.Repeat("c", m), true
}

// sampleDyck2 draws uniformly from the Dyck-2 strings of length n: a
// uniformly random Dyck path, each up-step opening ( or [ with probability
// 1/2 and each down-step closing the matching bracket.
func sampleDyck2(rng *rand.Rand, n int) (string, bool) {
	if n < 2 || n%2 != 0 {
		return "", false
	}
	out := make([]byte, 0, n)
	var open []byte
	for r := n; r > 0; r-- {
		if upStep(rng, r, len(open)) {
			c := "(["[rng.IntN(2)]
			open = append(open, c)
			out = append(out, c)
			continue
		}
		out = append(out, closing(open[len(open)-1]))
		open = open[:len(open)-1]
	}
	return string(out), true
}

// upStep reports whether a uniformly random Dyck path at height h with r
// steps remaining goes up next. Of the D(r,h) paths from there back to 0,
//
//	P(up | r, h) = D(r-1, h+1) / D(r, h) = (r-h)(h+2) / (2r(h+1)),
//
// from the ballot numbers D(r, h) = (h+1)/(r+1) · C(r+1, (r-h)/2); the
// comparison is in integers, so P = 1 at h = 0 and P = 0 at h = r exactly.
func upStep(rng *rand.Rand, r, h int) bool {
	return rng.IntN(2*r*(h+1)) < (r-h)*(h+2)
}
