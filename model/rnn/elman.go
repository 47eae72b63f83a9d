package rnn

import (
	"math"
	"math/rand/v2"

	"github.com/nspda/nspda/nn"
)

// Elman is the simple recurrent network ("elman"), or with multiplicative
// integration the MI-RNN ("mi-rnn"). Its state is h (H units):
//
//	elman:  h_t = tanh(W x_t + U h_{t−1} + b)                               (baselines.md §4)
//	mi-rnn: h_t = tanh(α ⊙ Wx_t ⊙ Uh_{t−1} + β₁ ⊙ Uh_{t−1} + β₂ ⊙ Wx_t + b)  (baselines.md §3)
//
// We use tanh units, the common modern choice (Joulin & Mikolov use
// sigmoid units; §4 asks us to say which). Parameters: W (X×H), U (H×H),
// b, [α, β₁, β₂,] v, c.
type Elman struct{ base }

// elmanRecord holds one iteration's input, previous state, U h and new state.
type elmanRecord struct {
	l      int
	h, uh  []float64
	hn, da []float64 // new state; scratch
}

// StateSize is H.
func (m *Elman) StateSize() int { return m.lay.H }

// NewRecord returns a record for one iteration.
func (m *Elman) NewRecord() any {
	H := m.lay.H
	return &elmanRecord{h: make([]float64, H), uh: make([]float64, H), hn: make([]float64, H), da: make([]float64, H)}
}

// Start sets h_0 = 0. rng is unused.
func (m *Elman) Start(s []float64, rng *rand.Rand) { nn.Zero(s) }

// Step computes s2 = h_t from s = h_{t−1} and input l, and returns the logit
// o = v·h_t + c. s and s2 must not overlap.
func (m *Elman) Step(rec any, s, s2 []float64, l int, first, last bool) float64 {
	r := rec.(*elmanRecord)
	r.l = l
	copy(r.h, s)
	mulVec(r.uh, m.p.U, s)
	m.integrate(s2, r.uh, l, 0)
	for i, a := range s2 {
		s2[i] = math.Tanh(a)
	}
	copy(r.hn, s2)
	return m.out(s2)
}

// StepVJP adds (∂h_t/∂h_{t−1})ᵀ ds2 into ds and (∂h_t/∂θ)ᵀ ds2 into grad:
// with da = ds2 ⊙ (1 − h_t²) and duh = (∂a/∂Uh) da,
// ∂W[l], ∂b (, ∂α, ∂β) from the block, ∂U += duh h_{t−1}ᵀ, ds += Uᵀ duh.
func (m *Elman) StepVJP(rec any, ds2, ds, grad []float64) {
	r := rec.(*elmanRecord)
	g := m.lay.bind(grad)
	for i, h := range r.hn {
		r.da[i] = ds2[i] * (1 - h*h)
	}
	m.integrateVJP(&g, r.da, r.uh, r.da, r.l, 0)
	outerAdd(g.U, r.da, r.h)
	mulTVecAdd(ds, m.p.U, r.da)
}

// StepJVP sets ds2 = (1 − h_t²) ⊙ (∂a/∂Uh) (U ds).
func (m *Elman) StepJVP(rec any, ds, ds2 []float64) {
	r := rec.(*elmanRecord)
	mulVec(ds2, m.p.U, ds)
	m.integrateJVP(ds2, r.l, 0)
	for i, h := range r.hn {
		ds2[i] *= 1 - h*h
	}
}

// OutVJP adds do·v into ds2 and do·(h_t, 1) into the readout's gradient.
func (m *Elman) OutVJP(rec any, do float64, ds2, grad []float64) {
	m.outVJP(rec.(*elmanRecord).hn, do, ds2, grad)
}

var _ nn.Model = (*Elman)(nil)
