package train

import (
	"math/rand/v2"

	"github.com/nspda/nspda/nn"
)

// BPTT is back-propagation through time: one forward pass keeping every
// iteration, then StepVJP and OutVJP in exactly the reverse order.
type BPTT struct {
	tp      tape
	ds, ds2 []float64
}

// Name is "bptt".
func (*BPTT) Name() string { return "bptt" }

// Gradient adds the exact gradient of the string's loss into grad.
func (b *BPTT) Gradient(net nn.Net, obj *Objective, ex Example, refine int, rng *rand.Rand, grad []float64) float64 {
	loss := b.tp.forward(net, obj, ex, refine, rng)
	S := net.StateSize()
	b.ds, b.ds2 = buf(b.ds, S), buf(b.ds2, S)
	b.tp.backward(net, obj, ex, b.ds, b.ds2, grad)
	return loss
}

// backward is one reverse sweep over the whole tape: for i = n−1 … 0,
//
//	ds2 += ∂L_i/∂s_{i+1}   (the loss terms of iteration i, outVJP)
//	ds   = (∂s_{i+1}/∂s_i)ᵀ ds2,   grad += (∂s_{i+1}/∂θ)ᵀ ds2   (StepVJP)
//
// and ds becomes the next ds2. ds and ds2 are scratch of the net's state
// size; ds2 is zeroed first.
func (tp *tape) backward(net nn.Net, obj *Objective, ex Example, ds, ds2, grad []float64) {
	nn.Zero(ds2)
	for i := tp.n - 1; i >= 0; i-- {
		tp.outVJP(net, obj, ex, i, ds2, grad)
		nn.Zero(ds)
		net.StepVJP(tp.recs[i], ds2, ds, grad)
		tp.inVJP(net, obj, ex, i, ds, grad)
		ds, ds2 = ds2, ds
	}
}

// TBPTT is truncated back-propagation through time: the loss terms of input
// t are back-propagated through the iterations of inputs t−Window+1 … t only
// (Window counts input symbols, each with its S(t) iterations). With a window
// at least as long as the string it equals BPTT. Cost O(T·Window) per string.
type TBPTT struct {
	Window  int
	tp      tape
	ds, ds2 []float64
	first   []int // first iteration of each input
}

// Name is "tbptt".
func (*TBPTT) Name() string { return "tbptt" }

// Gradient adds the truncated gradient into grad.
func (b *TBPTT) Gradient(net nn.Net, obj *Objective, ex Example, refine int, rng *rand.Rand, grad []float64) float64 {
	loss := b.tp.forward(net, obj, ex, refine, rng)
	S := net.StateSize()
	b.ds, b.ds2 = buf(b.ds, S), buf(b.ds2, S)
	b.first = b.first[:0]
	for i := 0; i < b.tp.n; i++ {
		if i == 0 || b.tp.sym[i] != b.tp.sym[i-1] {
			b.first = append(b.first, i)
		}
	}
	b.sweep(net, obj, ex, grad, b.Window)
	return loss
}

// sweep runs the windowed reverse sweeps over the recorded tape.
func (b *TBPTT) sweep(net nn.Net, obj *Objective, ex Example, grad []float64, window int) {
	T := len(b.first)
	if window >= T { // every window reaches the start: one BPTT sweep
		b.tp.backward(net, obj, ex, b.ds, b.ds2, grad)
		return
	}
	b.sweepWindowed(net, obj, ex, grad, window)
}

// sweepWindowed runs one truncated reverse sweep per input.
func (b *TBPTT) sweepWindowed(net nn.Net, obj *Objective, ex Example, grad []float64, window int) {
	T := len(b.first)
	for t := 0; t < T; t++ {
		end := b.tp.n
		if t+1 < T {
			end = b.first[t+1]
		}
		stop := b.first[max(0, t-window+1)]
		nn.Zero(b.ds2)
		for i := end - 1; i >= stop; i-- {
			if b.tp.sym[i] == t {
				b.tp.outVJP(net, obj, ex, i, b.ds2, grad)
			}
			nn.Zero(b.ds)
			net.StepVJP(b.tp.recs[i], b.ds2, b.ds, grad)
			if b.tp.sym[i] == t {
				b.tp.inVJP(net, obj, ex, i, b.ds, grad)
			}
			b.ds, b.ds2 = b.ds2, b.ds
		}
	}
}
