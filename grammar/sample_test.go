package grammar

import (
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"
	"time"
)

// specSampler returns the built-in language name and a sampler of its spec
// file, testdata/name.yaml.
func specSampler(t *testing.T, name string) (*Language, func(*rand.Rand, int) (string, bool)) {
	t.Helper()
	return mustBuiltin(t, name), NewSampler(parseFile(t, specPath(name)))
}

// TestSamplerOnSpecFiles checks the generic sampler on the five spec files
// against the built-in recognizers: a member of length n exactly when one
// exists, for n up to 60.
func TestSamplerOnSpecFiles(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l, sample := specSampler(t, name)
			rng := rand.New(rand.NewPCG(10, 11))
			for n := 0; n <= 60; n++ {
				for range 10 {
					s, ok := sample(rng, n)
					if ok != hasMembers[name](n) {
						t.Fatalf("sample(%d) ok = %v, want %v", n, ok, !ok)
					}
					if ok && (len(s) != n || !l.Recognize(s)) {
						t.Fatalf("sample(%d) = %q: not a member of length %d", n, s, n)
					}
				}
			}
		})
	}
}

// TestSamplerLong draws strings of length about 960 (the paper's longest
// test strings), each with a new sampler so that its table is built too.
func TestSamplerLong(t *testing.T) {
	lengths := map[string]int{"palindrome": 961, "anbn": 960, "anbncbmam": 961, "anmbncm": 960, "dyck2": 960}
	for _, name := range Names() {
		l, sample := specSampler(t, name)
		n := lengths[name]
		start := time.Now()
		s, ok := sample(rand.New(rand.NewPCG(12, 13)), n)
		elapsed := time.Since(start)
		if !ok || len(s) != n || !l.Recognize(s) {
			t.Errorf("%s: sample(%d) = %.20q..., %v: not a member", name, n, s, ok)
		}
		if elapsed > time.Second {
			t.Errorf("%s: sample(%d) took %v, want < 1s", name, n, elapsed)
		}
		t.Logf("%s: sample(%d) in %v", name, n, elapsed)
	}
}

// TestSamplerAgreesWithBruteForce compares, for short lengths, whether the
// sampler finds a string with whether one exists, on PDAs whose walks never
// reach a dead end (the abstraction is exact for them).
func TestSamplerAgreesWithBruteForce(t *testing.T) {
	specs := map[string]string{"anbn": anbnSpec}
	// a^n b^m (m <= n): acceptance with a non-empty stack; a* b a*: pops of
	// the empty stack through top any; topaccept: acceptance that depends on
	// the top (a on top or the empty stack).
	for _, name := range []string{"small/anbm", "small/popany", "topaccept"} {
		data, err := os.ReadFile(specPath(name))
		if err != nil {
			t.Fatal(err)
		}
		specs[name] = string(data)
	}
	for name, spec := range specs {
		p, err := Parse(name+".yaml", []byte(spec))
		if err != nil {
			t.Fatal(err)
		}
		sample, rng := NewSampler(p), rand.New(rand.NewPCG(14, 15))
		exists := make([]bool, 11)
		eachString(p.Alphabet, 10, func(s string) { exists[len(s)] = exists[len(s)] || p.Accepts(s) })
		for n, want := range exists {
			s, ok := sample(rng, n)
			if ok != want || ok && (len(s) != n || !p.Accepts(s)) {
				t.Errorf("%s: sample(%d) = %q, %v; a member exists: %v", name, n, s, ok, want)
			}
		}
	}
}

// TestSamplerRetries uses a PDA on which the abstraction is loose: after
// "b" a walk is doomed (w c a^|w| with w in a*, but b is pushable), so
// walks fail half the time per symbol of w and the sampler must retry.
func TestSamplerRetries(t *testing.T) {
	p := parseFile(t, specPath("small/loose"))
	sample, rng := NewSampler(p), rand.New(rand.NewPCG(16, 17))
	for n, want := range []string{"", "c", "", "aca", "", "aacaa"} {
		if s, ok := sample(rng, n); s != want || ok != (want != "") {
			t.Errorf("sample(%d) = %q, %v; want %q", n, s, ok, want)
		}
	}
	// With 30 symbols of w a walk succeeds with probability 2^-30: the
	// sampler gives up although a member exists, as documented.
	if s, ok := sample(rng, 61); ok && !p.Accepts(s) {
		t.Errorf("sample(61) = %q, not a member", s)
	}
}

func TestSamplerLimits(t *testing.T) {
	sample := NewSampler(mustBuiltin(t, "dyck2").PDA)
	rng := rand.New(rand.NewPCG(1, 1))
	// dyck2 has 2 states and 4 symbols: 5·(n+1)(n+4) > 2^28 from n = 7325.
	for _, n := range []int{-1, 7325, 1 << 40} {
		if s, ok := sample(rng, n); ok {
			t.Errorf("sample(%d) = %q, true", n, s)
		}
	}
}

func TestSamplerDeterministicAndConcurrent(t *testing.T) {
	sample := NewSampler(mustBuiltin(t, "dyck2").PDA)
	draw := func(seed uint64) []string {
		rng := rand.New(rand.NewPCG(seed, 0))
		var out []string
		for n := 2; n <= 80; n += 2 {
			s, _ := sample(rng, n)
			out = append(out, s)
		}
		return out
	}
	want := draw(1)
	var wg sync.WaitGroup
	got := make([][]string, 4)
	for i := range got {
		wg.Go(func() { got[i] = draw(1) })
	}
	wg.Wait()
	for i := range got {
		if !slices.Equal(got[i], want) {
			t.Fatalf("draw %d from seed 1 differs", i)
		}
	}
}
