// Package stack holds the stacks that recurrent networks drive: the NSPDA's
// digital stack of discrete symbols and its read neurons.
package stack

import "github.com/nspda/nspda/grammar"

// Reads are the values a read neuron takes (docs/design.md section 2): the neuron of
// the symbol on top (or of the bottom marker ⊥ when the stack is empty) reads
// Top, the neuron of a symbol popped by the last action reads Popped, and
// every other neuron reads Other.
type Reads struct {
	Top, Popped, Other float64
}

// The intervals the paper draws read values from (its alpha2, alpha3, alpha1).
var (
	TopRange    = [2]float64{0.901, 0.992}
	PoppedRange = [2]float64{0.025, 0.110}
	OtherRange  = [2]float64{0.0001, 0.008}
)

// EvalReads are the fixed read values used outside training: the midpoints of
// the paper's intervals, so that evaluation is deterministic.
var EvalReads = Reads{
	Top:    (TopRange[0] + TopRange[1]) / 2,
	Popped: (PoppedRange[0] + PoppedRange[1]) / 2,
	Other:  (OtherRange[0] + OtherRange[1]) / 2,
}

// Digital is a stack of symbol indices. The zero value is an empty stack.
// Popping an empty stack is not an error: it does nothing and is counted.
type Digital struct {
	s         []int
	popped    int // symbol removed by the last Apply, or -1
	EmptyPops int // pops attempted on an empty stack since Reset
}

// Reset empties the stack, keeping its memory.
func (d *Digital) Reset() {
	d.s = d.s[:0]
	d.popped = -1
	d.EmptyPops = 0
}

// Apply performs op; a push pushes sym.
func (d *Digital) Apply(op grammar.Op, sym int) {
	d.popped = -1
	switch op {
	case grammar.Push:
		d.s = append(d.s, sym)
	case grammar.Pop:
		n := len(d.s)
		if n == 0 {
			d.EmptyPops++
			return
		}
		d.popped = d.s[n-1]
		d.s = d.s[:n-1]
	}
}

// Set makes the stack hold syms (bottom first, copied) with popped as the
// symbol removed by the last action (-1 for none), as if it had got there by
// a run; EmptyPops is reset.
func (d *Digital) Set(syms []int, popped int) {
	d.s = append(d.s[:0], syms...)
	d.popped = popped
	d.EmptyPops = 0
}

// Len is the number of symbols on the stack.
func (d *Digital) Len() int { return len(d.s) }

// Top returns the top symbol, or -1 if the stack is empty.
func (d *Digital) Top() int {
	if n := len(d.s); n > 0 {
		return d.s[n-1]
	}
	return -1
}

// Popped returns the symbol removed by the last Apply, or -1.
func (d *Digital) Popped() int { return d.popped }

// Symbols returns the stack's contents, bottom first. The slice is the
// stack's own memory: do not keep it across Apply.
func (d *Digital) Symbols() []int { return d.s }

// Read fills r (length L+1, the last neuron being ⊥) with the read neurons'
// values for the current stack. The popped symbol's neuron reads v.Popped
// unless that symbol is also on top.
func (d *Digital) Read(r []float64, v Reads) {
	for k := range r {
		r[k] = v.Other
	}
	Mark(r, d.Top(), d.popped, v.Top, v.Popped)
}

// Mark completes a read r whose neurons hold the values of neither the top
// nor the popped symbol: the neuron of popped (−1: none) reads vPopped, and
// the neuron of top (−1: the stack is empty, and ⊥, the last neuron, is on
// top) reads vTop, even if it is also popped. Read is Mark over r filled
// with Reads.Other; the NSPDA's training draws every other neuron's value
// on its own and calls Mark directly.
func Mark(r []float64, top, popped int, vTop, vPopped float64) {
	if popped >= 0 {
		r[popped] = vPopped
	}
	if top < 0 {
		top = len(r) - 1
	}
	r[top] = vTop
}
