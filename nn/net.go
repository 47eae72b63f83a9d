// Package nn holds what every trainable recurrent classifier shares: the Net
// interface that gradient estimators differentiate; the Classifier interface
// that evaluation scores, and NetClassifier, one for any Net; the model
// registry's vocabulary (Model, Spec and the optional interfaces a model may
// implement); and helpers for finite-difference checks.
//
// A string is read as a sequence of iterations. Each input symbol (and the end
// marker $ after the last one) is presented S(t) ≥ 1 times in a row (iterative
// refinement, paper eq. 6). Every iteration maps the recurrent state s, a real
// vector, to a new state s2 and makes a prediction y = σ(o) from s2. Discrete
// memory a network keeps (the NSPDA's digital stack) moves only at the last
// iteration of a symbol, and what it did is recorded, so that derivatives are
// those of the recorded forward pass with its discrete decisions held fixed.
package nn

import "math/rand/v2"

// Net is a recurrent string classifier with differentiable iterations.
//
// Conventions (llm.c style): a VJP *adds* into its outputs (ds, grad), a JVP
// *sets* its output. grad is indexed like Params. Records come from NewRecord
// and hold everything the derivatives of one iteration need; a Net must not
// allocate in Step, StepVJP, StepJVP or OutVJP.
type Net interface {
	// Params is the live, flat parameter vector the net computes with.
	Params() []float64
	// StateSize is the length of the recurrent state s.
	StateSize() int
	// InputSize is the number of input neurons: the alphabet plus the end
	// marker, which is input index InputSize()-1.
	InputSize() int
	// NewRecord returns scratch space for one iteration.
	NewRecord() any
	// Start begins a string: it writes the initial state into s and resets
	// any discrete memory. rng supplies training-time randomness (the NSPDA's
	// read values); nil selects deterministic evaluation mode.
	Start(s []float64, rng *rand.Rand)
	// Step runs one iteration on input l from state s into s2 and returns the
	// output logit o (the prediction is σ(o)). first and last mark the first
	// and last iterations of the symbol (both, without refinement): a net
	// with discrete memory decides what to do with it at one of them.
	Step(rec any, s, s2 []float64, l int, first, last bool) (o float64)
	// StepVJP adds (∂s2/∂s)ᵀ ds2 into ds and (∂s2/∂θ)ᵀ ds2 into grad.
	StepVJP(rec any, ds2, ds, grad []float64)
	// StepJVP sets ds2 = (∂s2/∂s) ds.
	StepJVP(rec any, ds, ds2 []float64)
	// OutVJP adds do·∂o/∂s2 into ds2 and do·∂o/∂θ into grad.
	OutVJP(rec any, do float64, ds2, grad []float64)
}

// NetClassifier is the Classifier of any Net: it runs the Net in evaluation
// mode, Refine iterations per symbol, the end marker last, and accepts when
// σ(o) > 0.5 after it. If the Net is a Reserver
// reserved for fewer symbols than a string has, Classify reserves it for that
// string's length first; it never shrinks the reservation. It allocates only
// when created and when the Net's state size changes. It is not safe for
// concurrent use.
type NetClassifier struct {
	Net    Net
	Refine int
	rec    any
	s, s2  []float64
}

// NewClassifier returns a NetClassifier with refine iterations per symbol.
func NewClassifier(net Net, refine int) *NetClassifier {
	if refine < 1 {
		refine = 1
	}
	n := net.StateSize()
	return &NetClassifier{Net: net, Refine: refine, rec: net.NewRecord(), s: make([]float64, n), s2: make([]float64, n)}
}

// Classify reads syms and the end marker and reports the final decision and
// prediction.
func (c *NetClassifier) Classify(syms []int) (accept bool, y float64) {
	c.fit(len(syms))
	c.Net.Start(c.s, nil)
	var o float64
	end := c.Net.InputSize() - 1
	for t := 0; t <= len(syms); t++ {
		l := end
		if t < len(syms) {
			l = syms[t]
		}
		for it := 0; it < c.Refine; it++ {
			o = c.Net.Step(c.rec, c.s, c.s2, l, it == 0, it == c.Refine-1)
			c.s, c.s2 = c.s2, c.s
		}
	}
	y = Sigmoid(o)
	return y > 0.5, y
}

// fit grows a Reserver's memory to hold n symbols, and the state buffers to
// the net's state size (which a Reserve elsewhere may also have changed).
// Records grow on their own at their next Step.
func (c *NetClassifier) fit(n int) {
	if r, ok := c.Net.(Reserver); ok && n > r.Reserved() {
		r.Reserve(n)
	}
	if size := c.Net.StateSize(); len(c.s) != size {
		c.s, c.s2 = make([]float64, size), make([]float64, size)
	}
}

// Actor is a net whose discrete memory is moved by action neurons, and
// whose actions can be supervised (docs/design.md section 8).
type Actor interface {
	// ActionLoss returns weight times the loss of the action neurons of the
	// iteration in rec against the target operation op (0 no-op, 1 push,
	// 2 pop, as grammar.Op), or 0 if that iteration takes no action. With ds
	// non-nil it adds the loss's gradient with respect to the iteration's
	// input state into ds, and with respect to the parameters into grad.
	ActionLoss(rec any, op int, weight float64, ds, grad []float64) float64
}
