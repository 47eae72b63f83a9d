package dataset

import (
	"fmt"
	"slices"
)

// maxNegativeTries bounds the candidates tried for one negative.
const maxNegativeTries = 1000

// editTries bounds the edits of one positive tried for an edit split's
// negative before other positives are edited instead; maxEditTries bounds
// them all (in a dense language few edits leave it).
const (
	editTries    = 50
	maxEditTries = 20000
)

// method makes a candidate negative of length T, or reports that it cannot
// (ok false). A candidate may still turn out to be a member; the caller checks.
type method struct {
	name   string
	weight int // out of 100
	make   func(g *generator, T int) (s []rune, ok bool, err error)
}

// methods are tried from the one drawn (by weight) down the list; the last
// always succeeds. Keep the package comment in step with this table.
var methods = []method{
	{"substitute", 35, (*generator).substitute},
	{"swap", 20, (*generator).swap},
	{"truncate", 15, (*generator).truncate},
	{"indel", 10, (*generator).indel},
	{"random", 20, (*generator).random},
}

// negative returns a non-member of length T that may be emitted.
func (g *generator) negative(T int) (string, error) {
	for range maxNegativeTries {
		c, ok, err := g.candidate(T)
		if err != nil {
			return "", err
		}
		if !ok {
			continue
		}
		if s := string(c); g.take(s) {
			return s, nil
		}
	}
	return "", fmt.Errorf("language %s: found no usable non-member of length %d in %d tries (are nearly all strings of that length members?)",
		g.lang.Name, T, maxNegativeTries)
}

// take emits the candidate negative c and reports true if it may be
// emitted and the language rejects it.
func (g *generator) take(c string) bool {
	if g.usable(c) && !g.lang.Recognize(c) {
		g.emit(c)
		return true
	}
	return false
}

// edit returns a non-member one insertion into or one deletion from a member,
// of a length within the split's range, that may be emitted (Spec.Edits).
// Insertion and deletion have even odds, except that a member at the
// range's longest length is only shortened and one at its shortest only
// lengthened. It edits pos[from] first; after editTries failed candidates
// (a dense language, where most neighbours are members) it edits positives
// drawn at random.
func (g *generator) edit(pos []string, from int) (string, error) {
	s := pos[from]
	for try := range maxEditTries {
		if try >= editTries {
			s = pos[g.rng.IntN(len(pos))]
		}
		r := []rune(s)
		del := g.rng.IntN(2) == 0
		if len(r) <= g.spec.MinLen || len(g.alphabet) == 0 {
			del = false
		}
		if len(r) >= g.spec.MaxLen {
			del = true
		}
		switch {
		case del && len(r) > 1:
			i := g.rng.IntN(len(r))
			r = slices.Delete(r, i, i+1)
		case !del && len(g.alphabet) > 0:
			r = slices.Insert(r, g.rng.IntN(len(r)+1), g.alphabet[g.rng.IntN(len(g.alphabet))])
		default:
			continue
		}
		if n := len(r); n < g.spec.MinLen || n > g.spec.MaxLen {
			continue
		}
		if c := string(r); g.take(c) {
			return c, nil
		}
	}
	return "", fmt.Errorf("language %s: found no usable non-member one insertion or deletion away from a member of lengths %d..%d in %d tries",
		g.lang.Name, g.spec.MinLen, g.spec.MaxLen, maxEditTries)
}

// candidate draws a method by weight and falls through to later ones until
// one makes a string.
func (g *generator) candidate(T int) ([]rune, bool, error) {
	r := g.rng.IntN(100)
	first := 0
	for first < len(methods)-1 && r >= methods[first].weight {
		r -= methods[first].weight
		first++
	}
	for _, m := range methods[first:] {
		c, ok, err := m.make(g, T)
		if err != nil || ok {
			return c, ok, err
		}
	}
	return nil, false, nil
}

// positiveRunes samples a member of length n as runes.
func (g *generator) positiveRunes(n int) ([]rune, bool, error) {
	s, ok, err := g.sample(n)
	return []rune(s), ok, err
}

// substitute replaces 1 or 2 symbols of a member of length T with other symbols.
func (g *generator) substitute(T int) ([]rune, bool, error) {
	if len(g.alphabet) < 2 {
		return nil, false, nil
	}
	s, ok, err := g.positiveRunes(T)
	if !ok {
		return nil, false, err
	}
	k := min(1+g.rng.IntN(2), len(s))
	for _, i := range g.rng.Perm(len(s))[:k] {
		s[i] = g.otherSymbol(s[i])
	}
	return s, true, nil
}

// otherSymbol returns a symbol of the alphabet other than r, uniformly; the
// alphabet has at least two symbols.
func (g *generator) otherSymbol(r rune) rune {
	for {
		if c := g.alphabet[g.rng.IntN(len(g.alphabet))]; c != r {
			return c
		}
	}
}

// swap exchanges two differing symbols of a member of length T.
func (g *generator) swap(T int) ([]rune, bool, error) {
	s, ok, err := g.positiveRunes(T)
	if !ok {
		return nil, false, err
	}
	i := g.rng.IntN(len(s))
	var js []int
	for j, c := range s {
		if c != s[i] {
			js = append(js, j)
		}
	}
	if len(js) == 0 {
		return nil, false, nil
	}
	j := js[g.rng.IntN(len(js))]
	s[i], s[j] = s[j], s[i]
	return s, true, nil
}

// truncate returns the length-T prefix of a member of length T+1..T+6, the
// first longer length (in a random order) that has one.
func (g *generator) truncate(T int) ([]rune, bool, error) {
	for _, d := range g.rng.Perm(6) {
		s, ok, err := g.positiveRunes(T + 1 + d)
		if err != nil {
			return nil, false, err
		}
		if ok {
			return s[:T], true, nil
		}
	}
	return nil, false, nil
}

// indel inserts a random symbol into a member of length T-1 or deletes one
// symbol of a member of length T+1, whichever is drawn first and works.
func (g *generator) indel(T int) ([]rune, bool, error) {
	tries := []func(int) ([]rune, bool, error){g.insert, g.remove}
	if g.rng.IntN(2) == 1 {
		tries[0], tries[1] = tries[1], tries[0]
	}
	for _, f := range tries {
		c, ok, err := f(T)
		if err != nil || ok {
			return c, ok, err
		}
	}
	return nil, false, nil
}

func (g *generator) insert(T int) ([]rune, bool, error) {
	s, ok, err := g.positiveRunes(T - 1)
	if !ok || len(g.alphabet) == 0 {
		return nil, false, err
	}
	c := g.alphabet[g.rng.IntN(len(g.alphabet))]
	return slices.Insert(s, g.rng.IntN(len(s)+1), c), true, nil
}

func (g *generator) remove(T int) ([]rune, bool, error) {
	s, ok, err := g.positiveRunes(T + 1)
	if !ok {
		return nil, false, err
	}
	i := g.rng.IntN(len(s))
	return slices.Delete(s, i, i+1), true, nil
}

// random returns T symbols drawn uniformly from the alphabet.
func (g *generator) random(T int) ([]rune, bool, error) {
	if len(g.alphabet) == 0 {
		return nil, false, nil
	}
	s := make([]rune, T)
	for i := range s {
		s[i] = g.alphabet[g.rng.IntN(len(g.alphabet))]
	}
	return s, true, nil
}
