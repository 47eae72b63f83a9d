package dataset

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"unicode/utf8"

	"github.com/nspda/nspda/grammar"
)

// maxMisses is how many draws in a row at one length may return a taken or
// excluded string before the length is marked exhausted.
const maxMisses = 50

// Generate draws the examples of one split of lang as spec says, following the
// protocol in the package comment. No string in exclude is emitted. The result
// depends only on lang's name and functions, spec and seed.
func Generate(lang *grammar.Language, spec Spec, seed uint64, exclude map[string]bool) ([]Example, error) {
	if err := checkLanguage(lang); err != nil {
		return nil, err
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if spec.Positives == 0 {
		return []Example{}, nil
	}
	g := newGenerator(lang, spec, seed, exclude)
	pos, err := g.positives()
	if err != nil {
		return nil, err
	}
	neg, err := g.negatives(pos)
	if err != nil {
		return nil, err
	}
	return g.shuffle(pos, neg), nil
}

// GenerateSplit draws the named split of lang with DefaultSpec (see
// GenerateWith).
func GenerateSplit(lang *grammar.Language, split string, seed uint64) ([]Example, error) {
	spec, err := DefaultSpec(split)
	if err != nil {
		return nil, err
	}
	return GenerateWith(lang, spec, seed)
}

// GenerateWith draws a split as spec says. The strings of a Distinct split
// (a test split) exclude those of the default train split generated with the
// same seed.
func GenerateWith(lang *grammar.Language, spec Spec, seed uint64) ([]Example, error) {
	var exclude map[string]bool
	if spec.Distinct {
		train, err := GenerateSplit(lang, "train", seed)
		if err != nil {
			return nil, err
		}
		exclude = make(map[string]bool, len(train))
		for _, e := range train {
			exclude[e.String] = true
		}
	}
	return Generate(lang, spec, seed, exclude)
}

func checkLanguage(lang *grammar.Language) error {
	switch {
	case lang == nil:
		return errors.New("no language given")
	case lang.Recognize == nil:
		return fmt.Errorf("language %s has no recognizer", lang.Name)
	case lang.Sample == nil:
		return fmt.Errorf("language %s has no sampler", lang.Name)
	}
	return nil
}

// Stream returns the random stream of one (language, split) pair:
// rand.New(rand.NewPCG(seed, h)) with h the FNV-1a hash of the language
// name, a zero byte and the split name.
func Stream(language, split string, seed uint64) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(language))
	h.Write([]byte{0})
	h.Write([]byte(split))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// generator holds the state of one call to Generate.
type generator struct {
	lang     *grammar.Language
	spec     Spec
	rng      *rand.Rand
	exclude  map[string]bool
	taken    map[string]bool // strings emitted so far, for distinct splits
	empty    map[int]bool    // lengths at which Sample found no member
	alphabet []rune
}

func newGenerator(lang *grammar.Language, spec Spec, seed uint64, exclude map[string]bool) *generator {
	g := &generator{
		lang: lang, spec: spec, exclude: exclude,
		rng:   Stream(lang.Name, spec.Split, seed),
		taken: make(map[string]bool),
		empty: make(map[int]bool),
	}
	if lang.PDA != nil {
		g.alphabet = slices.Clone(lang.PDA.Alphabet)
	}
	return g
}

// sample returns a member of length n, false if Sample reports none (now or
// before), and an error if the sampler returns a string that is not a member
// of length n.
func (g *generator) sample(n int) (string, bool, error) {
	if n < 1 || g.empty[n] {
		return "", false, nil
	}
	s, ok := g.lang.Sample(g.rng, n)
	if !ok {
		g.empty[n] = true
		return "", false, nil
	}
	if utf8.RuneCountInString(s) != n || !g.lang.Recognize(s) {
		return "", false, fmt.Errorf("language %s: asked for a member of length %d, the sampler returned %s, which is not one",
			g.lang.Name, n, shorten(s))
	}
	return s, true, nil
}

// usable reports whether s may be emitted: not excluded and, in a distinct
// split, not emitted already.
func (g *generator) usable(s string) bool {
	return !g.exclude[s] && !(g.spec.Distinct && g.taken[s])
}

func (g *generator) emit(s string) {
	if g.spec.Distinct {
		g.taken[s] = true
	}
}

// positives draws up to spec.Positives members, dropping lengths that have no
// member or are exhausted (see maxMisses).
func (g *generator) positives() ([]string, error) {
	live := make([]int, 0, g.spec.MaxLen-g.spec.MinLen+1)
	for n := g.spec.MinLen; n <= g.spec.MaxLen; n++ {
		live = append(live, n)
	}
	misses := make(map[int]int)
	var pos []string
	found := false
	for len(pos) < g.spec.Positives && len(live) > 0 {
		i := g.rng.IntN(len(live))
		s, ok, err := g.sample(live[i])
		switch {
		case err != nil:
			return nil, err
		case !ok:
			live = slices.Delete(live, i, i+1)
		case !g.usable(s):
			found = true
			if misses[live[i]]++; misses[live[i]] >= maxMisses {
				live = slices.Delete(live, i, i+1)
			}
		default:
			found = true
			misses[live[i]] = 0
			g.emit(s)
			pos = append(pos, s)
		}
	}
	return pos, g.checkPositives(pos, found)
}

func (g *generator) checkPositives(pos []string, found bool) error {
	span := fmt.Sprintf("%d..%d", g.spec.MinLen, g.spec.MaxLen)
	if !found {
		if g.lang.SampleLimit != nil {
			if err := g.lang.SampleLimit(g.spec.MaxLen); err != nil {
				return fmt.Errorf("language %s: found no member of length %s: %v", g.lang.Name, span, err)
			}
		}
		return fmt.Errorf("language %s has no member of length %s", g.lang.Name, span)
	}
	if len(pos) == 0 {
		return fmt.Errorf("language %s: every member of length %s found is excluded", g.lang.Name, span)
	}
	if g.alphabet == nil {
		g.alphabet = symbolsOf(pos)
	}
	return nil
}

// symbolsOf returns the distinct runes of strs in increasing order.
func symbolsOf(strs []string) []rune {
	seen := make(map[rune]bool)
	var syms []rune
	for _, s := range strs {
		for _, r := range s {
			if !seen[r] {
				seen[r] = true
				syms = append(syms, r)
			}
		}
	}
	slices.Sort(syms)
	return syms
}

// negatives makes the negatives, each with its length taken from a positive.
// If the positives fell short of the target, the negatives are cut to match.
func (g *generator) negatives(pos []string) ([]string, error) {
	want := g.spec.Negatives
	if len(pos) < g.spec.Positives {
		want = min(want, len(pos))
	}
	neg := make([]string, 0, want)
	for i := range want {
		from := i
		if i >= len(pos) {
			from = g.rng.IntN(len(pos))
		}
		var s string
		var err error
		if g.spec.Edits {
			s, err = g.edit(pos, from)
		} else {
			s, err = g.negative(utf8.RuneCountInString(pos[from]))
		}
		if err != nil {
			return nil, err
		}
		neg = append(neg, s)
	}
	return neg, nil
}

// shuffle labels the strings and returns them in a random order.
func (g *generator) shuffle(pos, neg []string) []Example {
	ex := make([]Example, 0, len(pos)+len(neg))
	for _, s := range pos {
		ex = append(ex, Example{String: s, Label: Positive})
	}
	for _, s := range neg {
		ex = append(ex, Example{String: s, Label: Negative})
	}
	g.rng.Shuffle(len(ex), func(i, j int) { ex[i], ex[j] = ex[j], ex[i] })
	return ex
}
