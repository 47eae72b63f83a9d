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
	// DeadAt, when positive, applies the dead-state hint of Das, Giles and
	// Sun (1993, "selective string presentation"): the string is known to
	// become illegal at symbol DeadAt (1-based), so processing stops after it
	// (no end marker) and the net's dead neuron (DeadNeuron) is trained
	// towards 1 there with the loss ½(1 − s_dead)².
	DeadAt int
	// Out, when not nil, is the output's target at each input (Syms, then
	// the end marker); NaN means no output term there. Nil is the paper's
	// loss: the label at every input (eq. 6).
	Out []float64
	// Next[t*(L+1)+c] reports whether input c (c = L: the end marker) may
	// follow the first t+1 symbols: the targets of Objective.Next.
	Next []bool
	// Ops[t] is the stack operation (as grammar.Op) the PDA performs on
	// symbol t, or −1 where it has none: the targets of the action loss.
	Ops []int8
}

// DeadNeuron is implemented by nets with a designated dead-state neuron: its
// index in the recurrent state, a value in (0, 1).
type DeadNeuron interface {
	DeadNeuron() int
}

// deadTerm returns the dead-state hint's loss on the state s2 after the last
// iteration of a stopped string and adds its derivative into ds2 (when ds2
// is not nil).
func deadTerm(net nn.Net, s2, ds2 []float64) float64 {
	d := net.(DeadNeuron).DeadNeuron()
	e := 1 - s2[d]
	if ds2 != nil {
		ds2[d] -= e
	}
	return 0.5 * e * e
}

// stopsAt reports whether iteration it of input t is the last one of a string
// stopped by the dead-state hint.
func (ex Example) stopsAt(t, it, k int) bool {
	return ex.DeadAt > 0 && t == ex.DeadAt-1 && it == k-1
}

// Estimator computes the gradient of one string's loss (paper eq. 6),
//
//	L = Σ_t Σ_{k=1..S(t)} BCE(σ(o_{t,k}), y_t)  + the terms of obj,
//
// where S(t) = refine, or 1 on hinted inputs, and y_t is the label (or
// ex.Out[t]). Gradient runs the string through net in training mode
// (randomness from rng), ADDS ∂L/∂θ (exact for BPTT and RTRL, an estimate
// for truncated BPTT and UORO) into grad and the heads' gradients into
// theirs, and returns L. A nil obj is the paper's loss. An Estimator keeps
// scratch memory between calls and is not safe for concurrent use.
type Estimator interface {
	Name() string
	Gradient(net nn.Net, obj *Objective, ex Example, refine int, rng *rand.Rand, grad []float64) (loss float64)
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

// Steps is the number of inputs, the end marker included (or the symbols up
// to DeadAt, under the dead-state hint).
func (ex Example) Steps() int {
	if ex.DeadAt > 0 {
		return ex.DeadAt
	}
	return len(ex.Syms) + 1
}

// tape keeps the records and states of a forward pass for reverse sweeps.
// It grows to the longest string seen and is reused.
type tape struct {
	recs   []any
	states [][]float64 // states[i] is the state before iteration i
	outs   []float64   // logits
	sym    []int       // input index t of each iteration
	it     []int       // iteration within its input
	last   []bool      // the iteration is its input's last
	n      int         // iterations recorded
	dead   int         // iteration carrying the dead-state hint's loss, or -1
}

// forward runs ex through net, recording every iteration, and returns the
// loss.
func (tp *tape) forward(net nn.Net, obj *Objective, ex Example, refine int, rng *rand.Rand) float64 {
	S := net.StateSize()
	tp.n, tp.dead = 0, -1
	tp.grow(net, S)
	net.Start(tp.states[0], rng)
	loss := 0.0
	for t := 0; t < ex.Steps(); t++ {
		l, k := ex.input(net, t), ex.iters(t, refine)
		for it := 0; it < k; it++ {
			i := tp.n
			tp.grow(net, S)
			o := net.Step(tp.recs[i], tp.states[i], tp.states[i+1], l, it == 0, it == k-1)
			tp.outs[i], tp.sym[i], tp.it[i], tp.last[i] = o, t, it, it == k-1
			if y, on := ex.outTarget(t); on {
				loss += nn.BCE(o, y)
			}
			loss += obj.actionLoss(net, tp.recs[i], ex, t, it, nil, nil)
			if it == k-1 {
				loss += obj.stateLoss(ex, t, tp.states[i+1], nil)
			}
			if ex.stopsAt(t, it, k) {
				tp.dead = i
				loss += deadTerm(net, tp.states[i+1], nil)
			}
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
		tp.it = append(tp.it, 0)
		tp.last = append(tp.last, false)
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

// outVJP adds the gradients of the loss terms on the state after iteration
// i (its output, the heads after an input's last iteration and, under the
// dead-state hint, the dead neuron) into ds2, grad and the heads' gradients.
func (tp *tape) outVJP(net nn.Net, obj *Objective, ex Example, i int, ds2, grad []float64) {
	t := tp.sym[i]
	if y, on := ex.outTarget(t); on {
		net.OutVJP(tp.recs[i], nn.Sigmoid(tp.outs[i])-y, ds2, grad)
	}
	if tp.last[i] {
		obj.stateLoss(ex, t, tp.states[i+1], ds2)
	}
	if i == tp.dead {
		deadTerm(net, tp.states[i+1], ds2)
	}
}

// inVJP adds the gradients of the loss terms on the state before iteration
// i (the action loss) into ds and grad.
func (tp *tape) inVJP(net nn.Net, obj *Objective, ex Example, i int, ds, grad []float64) {
	obj.actionLoss(net, tp.recs[i], ex, tp.sym[i], tp.it[i], ds, grad)
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
