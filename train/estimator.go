// Package train trains any nn.Net on labelled strings: gradient estimators
// (BPTT, truncated BPTT, RTRL, UORO) behind one interface, SGD with clipping
// and a stochastic learning-rate schedule, the curricula, the adaptive noise
// regularizer, hints, and the driver that writes metrics and checkpoints.
package train

import (
	"math/rand/v2"

	"github.com/nspda/nspda/nn"
)

// Example is one training string.
type Example struct {
	Syms  []int   // symbol indices; the end marker is appended by the estimators
	Label float64 // 1 in the language, 0 not
	// Hinted marks the inputs (Syms, then the end marker) whose state
	// transition a hint programs: they get one iteration, S(t) = 1 (paper eq.
	// 6); the others get K. Nil means no hinted input.
	Hinted []bool
}

// Estimator computes the gradient of one string's loss (paper eq. 6),
//
//	L = Σ_t Σ_{k=1..S(t)} BCE(σ(o_{t,k}), y),
//
// where S(t) = refine, or 1 on hinted inputs. Gradient runs the string
// through net in training mode (randomness from rng), ADDS ∂L/∂θ (exact for
// BPTT and RTRL, an estimate for truncated BPTT and UORO) into grad, and
// returns L. An Estimator keeps scratch memory between calls and is not safe
// for concurrent use.
type Estimator interface {
	Name() string
	Gradient(net nn.Net, ex Example, refine int, rng *rand.Rand, grad []float64) (loss float64)
}

// iters is S(t) for input t (t = len(Syms) is the end marker).
func (ex Example) iters(t, refine int) int {
	if ex.Hinted != nil && ex.Hinted[t] {
		return 1
	}
	return refine
}

// input is the input index of step t: a symbol, or the end marker.
func (ex Example) input(net nn.Net, t int) int {
	if t < len(ex.Syms) {
		return ex.Syms[t]
	}
	return net.InputSize() - 1
}

// Steps is the number of inputs, the end marker included.
func (ex Example) Steps() int { return len(ex.Syms) + 1 }

// tape keeps the records and states of a forward pass for reverse sweeps.
// It grows to the longest string seen and is reused.
type tape struct {
	recs   []any
	states [][]float64 // states[i] is the state before iteration i
	outs   []float64   // logits
	sym    []int       // input index t of each iteration
	n      int         // iterations recorded
}

// forward runs ex through net, recording every iteration, and returns the
// loss.
func (tp *tape) forward(net nn.Net, ex Example, refine int, rng *rand.Rand) float64 {
	S := net.StateSize()
	tp.n = 0
	tp.grow(net, S)
	net.Start(tp.states[0], rng)
	loss := 0.0
	for t := 0; t < ex.Steps(); t++ {
		l, k := ex.input(net, t), ex.iters(t, refine)
		for it := 0; it < k; it++ {
			i := tp.n
			tp.grow(net, S)
			o := net.Step(tp.recs[i], tp.states[i], tp.states[i+1], l, it == 0, it == k-1)
			tp.outs[i], tp.sym[i] = o, t
			loss += nn.BCE(o, ex.Label)
			tp.n++
		}
	}
	return loss
}

// grow makes room for iteration tp.n (and the state after it).
func (tp *tape) grow(net nn.Net, S int) {
	for len(tp.recs) <= tp.n {
		tp.recs = append(tp.recs, net.NewRecord())
		tp.outs = append(tp.outs, 0)
		tp.sym = append(tp.sym, 0)
	}
	for len(tp.states) <= tp.n+1 {
		tp.states = append(tp.states, make([]float64, S))
	}
	if len(tp.states[0]) != S { // the net's state size changed (nn.Reserver)
		for i := range tp.states {
			tp.states[i] = make([]float64, S)
		}
	}
}

// buf returns v resized to n and zeroed, reusing its memory.
func buf(v []float64, n int) []float64 {
	if cap(v) < n {
		return make([]float64, n)
	}
	v = v[:n]
	nn.Zero(v)
	return v
}
