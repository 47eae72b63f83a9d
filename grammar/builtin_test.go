package grammar

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// exhaustiveLen is the length up to which every string over a built-in
// alphabet is checked.
const exhaustiveLen = 10

// hasMembers reports from each language's definition whether it has a member
// of length n; TestBuiltinPDAMatchesRecognizer checks it by brute force.
var hasMembers = map[string]func(n int) bool{
	"palindrome": func(n int) bool { return n%2 == 1 },
	"anbn":       func(n int) bool { return n >= 2 && n%2 == 0 },
	"anbncbmam":  func(n int) bool { return n >= 5 && n%2 == 1 },
	"anmbncm":    func(n int) bool { return n >= 4 && n%2 == 0 },
	"dyck2":      func(n int) bool { return n >= 2 && n%2 == 0 },
}

func mustBuiltin(t testing.TB, name string) *Language {
	t.Helper()
	l, ok := Builtin(name)
	if !ok {
		t.Fatalf("Builtin(%q) not found", name)
	}
	return l
}

// eachString calls f on every string over alphabet of length 0..maxLen.
func eachString(alphabet []rune, maxLen int, f func(s string)) {
	buf := make([]rune, 0, maxLen)
	var rec func()
	rec = func() {
		f(string(buf))
		if len(buf) == maxLen {
			return
		}
		for _, r := range alphabet {
			buf = append(buf, r)
			rec()
			buf = buf[:len(buf)-1]
		}
	}
	rec()
}

func TestNames(t *testing.T) {
	want := []string{"palindrome", "anbn", "anbncbmam", "anmbncm", "dyck2"}
	if got := Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, name := range want {
		l := mustBuiltin(t, name)
		if l.Name != name || l.PDA.Name != name || l.Description == "" {
			t.Errorf("Builtin(%q) = name %q, PDA %q, description %q", name, l.Name, l.PDA.Name, l.Description)
		}
	}
	if _, ok := Builtin("nope"); ok {
		t.Error(`Builtin("nope") found a language`)
	}
}

func TestBuiltinAlphabets(t *testing.T) {
	want := map[string]string{"palindrome": "abc", "anbn": "ab", "anbncbmam": "abc", "anmbncm": "abc", "dyck2": "()[]"}
	for name, alphabet := range want {
		if got := string(mustBuiltin(t, name).PDA.Alphabet); got != alphabet {
			t.Errorf("%s alphabet = %q, want %q", name, got, alphabet)
		}
	}
}

// TestBuiltinPDAMatchesRecognizer runs every string up to exhaustiveLen
// through both the PDA and the recognizer, and checks hasMembers.
func TestBuiltinPDAMatchesRecognizer(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l := mustBuiltin(t, name)
			members := make([]int, exhaustiveLen+1)
			eachString(l.PDA.Alphabet, exhaustiveLen, func(s string) {
				in := l.Recognize(s)
				if got := l.PDA.Accepts(s); got != in {
					t.Fatalf("%q: PDA says %v, recognizer %v", s, got, in)
				}
				if in {
					members[len(s)]++
				}
			})
			for n, c := range members {
				if (c > 0) != hasMembers[name](n) {
					t.Errorf("length %d: %d members, hasMembers says %v", n, c, hasMembers[name](n))
				}
			}
		})
	}
}

func TestBuiltinPDAMatchesRecognizerOnLongStrings(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l := mustBuiltin(t, name)
			rng := rand.New(rand.NewPCG(1, 2))
			for i := range 3000 {
				n := 22 + rng.IntN(179)
				var s string
				if i%3 == 0 {
					s = randomString(rng, l.PDA.Alphabet, n)
				} else {
					s = nearMiss(rng, l, n)
				}
				if got, want := l.PDA.Accepts(s), l.Recognize(s); got != want {
					t.Fatalf("%q: PDA says %v, recognizer %v", s, got, want)
				}
			}
		})
	}
}

func randomString(rng *rand.Rand, alphabet []rune, n int) string {
	b := make([]rune, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// nearMiss returns a member of length about n, often with one edit: a
// substitution, an adjacent swap, a deletion or an insertion.
func nearMiss(rng *rand.Rand, l *Language, n int) string {
	s, ok := l.Sample(rng, n)
	for !ok {
		n++
		s, ok = l.Sample(rng, n)
	}
	b := []rune(s)
	i := rng.IntN(len(b))
	sym := l.PDA.Alphabet[rng.IntN(l.PDA.L())]
	switch rng.IntN(5) {
	case 0:
		b[i] = sym
	case 1:
		if i+1 < len(b) {
			b[i], b[i+1] = b[i+1], b[i]
		}
	case 2:
		b = slices.Delete(b, i, i+1)
	case 3:
		b = slices.Insert(b, i, sym)
	}
	return string(b)
}

func TestBuiltinSample(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			l := mustBuiltin(t, name)
			rng := rand.New(rand.NewPCG(3, 4))
			for n := 0; n <= 60; n++ {
				for range 20 {
					s, ok := l.Sample(rng, n)
					if ok != hasMembers[name](n) {
						t.Fatalf("Sample(%d) ok = %v, want %v", n, ok, !ok)
					}
					if ok && (len(s) != n || !l.Recognize(s) || !l.PDA.Accepts(s)) {
						t.Fatalf("Sample(%d) = %q: not a member of length %d", n, s, n)
					}
				}
			}
		})
	}
}

func TestBuiltinSampleDeterministic(t *testing.T) {
	for _, name := range Names() {
		l := mustBuiltin(t, name)
		draw := func() []string {
			rng := rand.New(rand.NewPCG(5, 6))
			var out []string
			for n := range 40 {
				s, _ := l.Sample(rng, n)
				out = append(out, s)
			}
			return out
		}
		if a, b := draw(), draw(); !slices.Equal(a, b) {
			t.Errorf("%s: two draws from one seed differ:\n%q\n%q", name, a, b)
		}
	}
}

// TestBuiltinSampleSpread checks that the samplers reach every member of a
// small length, and that the uniform ones are roughly uniform.
func TestBuiltinSampleSpread(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		members int
		uniform bool
	}{
		{"palindrome", 7, 8, true},
		{"anbn", 6, 1, true},
		{"anbncbmam", 9, 3, true},
		{"anmbncm", 10, 4, true},
		{"dyck2", 6, 5 * 8, true}, // Catalan(3) paths, 2^3 bracket types
		{"dyck2", 10, 42 * 32, false},
	}
	for _, tt := range tests {
		l := mustBuiltin(t, tt.name)
		rng := rand.New(rand.NewPCG(7, uint64(tt.n)))
		const draws = 40000
		count := map[string]int{}
		for range draws {
			s, _ := l.Sample(rng, tt.n)
			count[s]++
		}
		if len(count) != tt.members {
			t.Errorf("%s, n=%d: %d distinct samples, want all %d members", tt.name, tt.n, len(count), tt.members)
		}
		mean := float64(draws) / float64(tt.members)
		for s, c := range count {
			if tt.uniform && (float64(c) < 0.8*mean || float64(c) > 1.2*mean) {
				t.Errorf("%s: %q drawn %d times, want about %.0f", tt.name, s, c, mean)
			}
		}
	}
}

// TestUpStep checks P(up | r, h) = (r-h)(h+2) / (2r(h+1)) against the
// ratio of brute-force path counts D(r-1, h+1) / D(r, h).
func TestUpStep(t *testing.T) {
	const maxR = 40
	// d[r][h] counts the paths of r ±1 steps from height h to 0 that never
	// go below 0.
	d := make([][]int64, maxR+1)
	for r := range d {
		d[r] = make([]int64, maxR+2)
	}
	d[0][0] = 1
	for r := 1; r <= maxR; r++ {
		for h := 0; h <= r; h++ {
			d[r][h] = d[r-1][h+1]
			if h > 0 {
				d[r][h] += d[r-1][h-1]
			}
		}
	}
	for r := 1; r <= maxR; r++ {
		for h := 0; h <= r; h++ {
			if d[r][h] == 0 {
				continue
			}
			// D(r-1,h+1)/D(r,h) == (r-h)(h+2) / (2r(h+1)), cross-multiplied.
			lhs := d[r-1][h+1] * int64(2*r*(h+1))
			rhs := d[r][h] * int64((r-h)*(h+2))
			if lhs != rhs {
				t.Errorf("r=%d h=%d: D(r-1,h+1)/D(r,h) = %d/%d, formula gives %d/%d",
					r, h, d[r-1][h+1], d[r][h], (r-h)*(h+2), 2*r*(h+1))
			}
		}
	}
}

func TestRecognizersRejectOtherRunes(t *testing.T) {
	for _, name := range Names() {
		l := mustBuiltin(t, name)
		rng := rand.New(rand.NewPCG(8, 9))
		for n := 4; n <= 9; n++ {
			s, ok := l.Sample(rng, n)
			if !ok {
				continue
			}
			for _, bad := range []string{"x", "$", "é", " "} {
				i := rng.IntN(n)
				u := s[:i] + bad + s[i+1:]
				if l.Recognize(u) || l.PDA.Accepts(u) {
					t.Errorf("%s accepts %q", name, u)
				}
			}
		}
	}
}
