package train

import (
	"math/rand/v2"

	"github.com/nspda/nspda/nn"
)

// influence is what a forward-mode estimator (RTRL, UORO) carries through a
// string: its own representation of ∂s/∂θ.
type influence interface {
	// propagate carries the influence over the iteration in rec, from
	// the state before it to the state after it.
	propagate(net nn.Net, rec any)
	// accumulate adds gsᵀ·∂s/∂θ into grad: the gradient of a loss whose
	// derivative with respect to the current state is gs.
	accumulate(gs, grad []float64)
}

// forward is the per-iteration loop the forward-mode estimators share: the
// states, the loss gradient gs and the net's record.
type forward struct {
	s, s2, gs []float64
	rec       any
	net       nn.Net
}

// sweep runs the string ex through net from its start, carrying inf along,
// adds the gradient of each loss term as it comes (the action loss on the
// state before an iteration, then the output, state and dead-state terms
// on the state after it) into grad, and returns the string's loss.
func (f *forward) sweep(inf influence, net nn.Net, obj *Objective, ex Example, refine int, rng *rand.Rand, grad []float64) float64 {
	S := net.StateSize()
	f.s, f.s2, f.gs = buf(f.s, S), buf(f.s2, S), buf(f.gs, S)
	if f.net != net {
		f.net, f.rec = net, net.NewRecord()
	}
	net.Start(f.s, rng)
	loss := 0.0
	for t := 0; t < ex.Steps(); t++ {
		l, k := ex.input(net, t), ex.iters(t, refine)
		for it := 0; it < k; it++ {
			o := net.Step(f.rec, f.s, f.s2, l, it == 0, it == k-1)
			if obj.actionAt(ex, t, it) {
				// A loss on the state before the iteration: the
				// influence is still that of the state before it.
				nn.Zero(f.gs)
				if l := obj.actionLoss(net, f.rec, ex, t, it, f.gs, grad); l != 0 {
					loss += l
					inf.accumulate(f.gs, grad)
				}
			}
			inf.propagate(net, f.rec)
			nn.Zero(f.gs)
			if y, on := ex.outTarget(t); on {
				loss += nn.BCE(o, y)
				net.OutVJP(f.rec, nn.Sigmoid(o)-y, f.gs, grad)
			}
			if it == k-1 {
				loss += obj.stateLoss(ex, t, f.s2, f.gs)
			}
			if ex.stopsAt(t, it, k) {
				loss += deadTerm(net, f.s2, f.gs)
			}
			inf.accumulate(f.gs, grad)
			f.s, f.s2 = f.s2, f.s
		}
	}
	return loss
}
