package grammar

import (
	"fmt"
	"math/rand/v2"
	"sync"
)

// MaxSampleBits bounds the memory of a NewSampler sampler's feasibility
// table: it returns false for a length n whose table would need more bits
// than this. The table up to n takes M·(L+1)·(n+1)(n+4)/2 bits for M states
// and L symbols: 32 MB allows n up to about 4700 for 6 states and 3 symbols.
const MaxSampleBits = 1 << 28

// sampleTries is how many random walks a NewSampler sampler tries before it
// gives up on a length.
const sampleTries = 100

// NewSampler returns a sampler of the strings of length n that p accepts, for
// any PDA. It is deterministic given the state of rng and safe for
// concurrent use.
//
// The sampler walks p's real configurations from the start. At each step it
// picks uniformly among the input symbols whose transition leaves acceptance
// feasible in exactly the remaining number of steps, so the distribution is
// uniform over the feasible next symbols, not over the strings (on the
// anbn-like prefix a^n b^n of anbncbmam, say, n comes out close to geometric).
//
// Feasibility is decided on an abstraction of a configuration: (state, top
// symbol or empty, stack height), the symbols below the top being unknown;
// it accepts where p accepts with that top (PDA.AcceptsAt).
// After a pop the new top may be any symbol that some transition pushes (or
// the stack is empty if the height reaches 0); a pop on an empty stack
// through a top=any transition leaves it empty. The abstraction
// over-approximates, so a walk can reach a dead end: the sampler retries up to
// 100 walks, checks every result with p.Run, and returns false if none
// succeeded. When the abstraction says no string of length n exists, none
// does, and the sampler returns false at once.
//
// The feasibility table does not depend on n: it is built lazily, one
// remaining-length layer at a time, and shared by all calls. Layer r covers
// heights 0..r+1 (from a height above r, no pop can empty the stack in r
// steps), so building up to n costs O(M·L·(L+1)·n²) time and about
// M·(L+1)·n²/2 bits, bounded by MaxSampleBits.
func NewSampler(p *PDA) func(rng *rand.Rand, n int) (string, bool) {
	f := &feasibility{p: p, pushed: pushedSymbols(p), empty: []int{p.L()}}
	return func(rng *rand.Rand, n int) (string, bool) {
		if n < 0 || n > 1<<16 || tableBits(p, n) > MaxSampleBits {
			return "", false
		}
		layers := f.upTo(n)
		if !layers[n].get(p.Start, p.L(), 0) {
			return "", false
		}
		for range sampleTries {
			if syms, ok := walk(p, layers, rng, n); ok && p.Run(syms) {
				return p.Decode(syms), true
			}
		}
		return "", false
	}
}

// SampleLimit reports, naming the bound, why a NewSampler sampler of p
// cannot sample strings of length n (its feasibility table would be larger
// than MaxSampleBits, or n is more than 2^16), or nil if it can.
func SampleLimit(p *PDA, n int) error {
	if n > 1<<16 {
		return fmt.Errorf("strings of length %d are longer than the sampler's limit of %d", n, 1<<16)
	}
	if b := tableBits(p, n); b > MaxSampleBits {
		return fmt.Errorf("sampling strings of length %d of a PDA of %d states and %d symbols needs a table of %d bits, more than the limit of %d", n, p.M(), p.L(), b, MaxSampleBits)
	}
	return nil
}

// tableBits is the size of the feasibility table of p up to length n, for
// n <= 2^16: layer r takes M·(L+1)·(r+2) bits.
func tableBits(p *PDA, n int) int {
	return p.M() * (p.L() + 1) * (n + 1) * (n + 4) / 2
}

// walk draws one string of length n, choosing each symbol uniformly among
// those that keep acceptance feasible; ok is false at a dead end.
func walk(p *PDA, layers []*layer, rng *rand.Rand, n int) (syms []int, ok bool) {
	c := Config{State: p.Start}
	syms = make([]int, 0, n)
	choices := make([]int, 0, p.L())
	for r := n; r > 0; r-- {
		choices = choices[:0]
		for l := range p.L() {
			if q, k, h, ok := next(p, c, l); ok && layers[r-1].get(q, k, h) {
				choices = append(choices, l)
			}
		}
		if len(choices) == 0 {
			return nil, false
		}
		l := choices[rng.IntN(len(choices))]
		p.Step(&c, l)
		syms = append(syms, l)
	}
	return syms, true
}

// next returns the state, top (L for empty) and height of the configuration
// that input l leads to from c, and whether there is a transition.
func next(p *PDA, c Config, l int) (q, k, h int, ok bool) {
	h = len(c.Stack)
	k = p.L()
	if h > 0 {
		k = c.Stack[h-1]
	}
	t, ok := p.Lookup(c.State, l, k)
	if !ok {
		return 0, 0, 0, false
	}
	switch {
	case t.Op == Push:
		k, h = l, h+1
	case t.Op == Pop && h > 1:
		k, h = c.Stack[h-2], h-1
	case t.Op == Pop:
		k, h = p.L(), 0
	}
	return t.To, k, h, true
}

// pushedSymbols lists the symbols some transition pushes: the only ones that
// can lie below the top of the stack.
func pushedSymbols(p *PDA) []int {
	seen := make([]bool, p.L())
	var out []int
	for _, t := range p.Transitions {
		if t.Op == Push && !seen[t.Input] {
			seen[t.Input] = true
			out = append(out, t.Input)
		}
	}
	return out
}

// feasibility holds the layers of the abstract feasibility table built so
// far: layers[r] reports, for each (state, top, height), whether an accepting
// configuration may be reached in exactly r more steps.
type feasibility struct {
	p      *PDA
	pushed []int // the tops of a non-empty stack
	empty  []int // the top of the empty stack: L

	mu     sync.Mutex
	layers []*layer
}

// layer is the table for r remaining steps, over heights 0..r+1; heights
// above r+1 behave as r+1. A layer is never modified once built.
type layer struct {
	r, tops int
	bits    []uint64
}

func (y *layer) index(q, k, h int) int {
	return (q*y.tops+k)*(y.r+2) + min(h, y.r+1)
}

func (y *layer) get(q, k, h int) bool {
	i := y.index(q, k, h)
	return y.bits[i/64]&(1<<(i%64)) != 0
}

func (y *layer) set(q, k, h int) {
	i := y.index(q, k, h)
	y.bits[i/64] |= 1 << (i % 64)
}

// upTo returns the layers 0..n, building the missing ones.
func (f *feasibility) upTo(n int) []*layer {
	f.mu.Lock()
	defer f.mu.Unlock()
	for r := len(f.layers); r <= n; r++ {
		f.layers = append(f.layers, f.build(r))
	}
	return f.layers[:n+1]
}

// build computes layer r from layer r-1 (layer 0 from acceptance). Only
// consistent entries are set: top empty exactly when the height is 0.
func (f *feasibility) build(r int) *layer {
	p := f.p
	y := &layer{r: r, tops: p.L() + 1}
	y.bits = make([]uint64, (p.M()*y.tops*(r+2)+63)/64)
	for q := range p.M() {
		for h := 0; h <= r+1; h++ {
			for _, k := range f.tops(h) {
				if f.feasible(y, q, k, h) {
					y.set(q, k, h)
				}
			}
		}
	}
	return y
}

// tops lists the tops consistent with height h.
func (f *feasibility) tops(h int) []int {
	if h == 0 {
		return f.empty
	}
	return f.pushed
}

// feasible reports whether (q, k, h) may accept in exactly y.r steps.
func (f *feasibility) feasible(y *layer, q, k, h int) bool {
	p := f.p
	if y.r == 0 {
		return p.AcceptsAt(q, k) // k is L exactly when h is 0
	}
	prev := f.layers[y.r-1]
	for l := range p.L() {
		t, ok := p.Lookup(q, l, k)
		if ok && f.after(prev, t, l, k, h) {
			return true
		}
	}
	return false
}

// after reports whether the abstract successor of (k, h) under transition t
// on input l is feasible in prev.
func (f *feasibility) after(prev *layer, t Transition, l, k, h int) bool {
	switch {
	case t.Op == Push:
		return prev.get(t.To, l, h+1)
	case t.Op == Noop:
		return prev.get(t.To, k, h)
	case h <= 1: // pop to (or, through top=any, on) the empty stack
		return prev.get(t.To, f.p.L(), 0)
	}
	for _, below := range f.pushed {
		if prev.get(t.To, below, h-1) {
			return true
		}
	}
	return false
}
