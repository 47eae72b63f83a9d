package rnn

import (
	"fmt"
	"math/rand/v2"

	"github.com/nspda/nspda/nn"
)

// SecondOrder is the second-order recurrent network of Giles et al.
// ("second-order"), J sigmoid state neurons reading one-hot inputs
// (baselines.md §5.1, S3 eq. 2, S4 §3):
//
//	z_{t+1,i} = σ( Σ_{j,k} W[i,j,k] z_{t,j} x_{t,k} + b_i ),   z_0 = e_0
//
// With x_t one-hot on input l the double sum is the matrix-vector product
// W_l z_t, W_l being the J×J slice of input l; W is stored input-major,
// W[l][i][j], so W_l is contiguous. The output is read at every iteration,
// o = v·z + c, instead of from the response neuron z_0 at the end of the
// string only ([INFER], baselines.md §1.9(b)); z_0 is an ordinary state
// neuron that starts on.
type SecondOrder struct{ base }

// secondRecord holds one iteration's input, previous and new state.
type secondRecord struct {
	l         int
	z, zn, da []float64
}

// StateSize is J.
func (m *SecondOrder) StateSize() int { return m.lay.H }

// NewRecord returns a record for one iteration.
func (m *SecondOrder) NewRecord() any {
	J := m.lay.H
	v := make([]float64, 3*J)
	return &secondRecord{z: v[:J], zn: v[J : 2*J], da: v[2*J:]}
}

// Start sets z_0 = e_0. rng is unused.
func (m *SecondOrder) Start(s []float64, rng *rand.Rand) {
	nn.Zero(s)
	s[0] = 1
}

// slice returns W_l, the J×J row-major slice of input l.
func (m *SecondOrder) slice(w []float64, l int) []float64 {
	JJ := m.lay.H * m.lay.H
	return w[l*JJ : (l+1)*JJ]
}

// Weight returns a pointer to W[i,j,k], the weight from state neuron j and
// input k to state neuron i, for programming a network by hand (Omlin &
// Giles, baselines.md §5.2). It panics on an index out of range.
func (m *SecondOrder) Weight(i, j, k int) *float64 {
	J := m.lay.H
	if i < 0 || i >= J || j < 0 || j >= J || k < 0 || k >= m.lay.X {
		panic(fmt.Sprintf("rnn: second-order weight (%d,%d,%d) out of range %d×%d×%d", i, j, k, J, J, m.lay.X))
	}
	return &m.p.W[(k*J+i)*J+j]
}

// Bias returns a pointer to b_i. It panics on an index out of range.
func (m *SecondOrder) Bias(i int) *float64 { return &m.p.B[i] }

// Step computes s2 = z_{t+1} = σ(W_l z_t + b) from s = z_t and input l, and
// returns o = v·z_{t+1} + c. s and s2 must not overlap.
func (m *SecondOrder) Step(rec any, s, s2 []float64, l int, first, last bool) float64 {
	r := rec.(*secondRecord)
	r.l = l
	copy(r.z, s)
	mulVec(s2, m.slice(m.p.W, l), s)
	for i, b := range m.p.B {
		s2[i] = nn.Sigmoid(s2[i] + b)
	}
	copy(r.zn, s2)
	return m.out(s2)
}

// StepVJP adds W_lᵀ da into ds and da z_tᵀ, da into the gradients of W_l and
// b, where da = ds2 ⊙ z_{t+1}(1 − z_{t+1}).
func (m *SecondOrder) StepVJP(rec any, ds2, ds, grad []float64) {
	r := rec.(*secondRecord)
	g := m.lay.bind(grad)
	for i, z := range r.zn {
		r.da[i] = ds2[i] * z * (1 - z)
		g.B[i] += r.da[i]
	}
	outerAdd(m.slice(g.W, r.l), r.da, r.z)
	mulTVecAdd(ds, m.slice(m.p.W, r.l), r.da)
}

// StepJVP sets ds2 = z_{t+1}(1 − z_{t+1}) ⊙ W_l ds.
func (m *SecondOrder) StepJVP(rec any, ds, ds2 []float64) {
	r := rec.(*secondRecord)
	mulVec(ds2, m.slice(m.p.W, r.l), ds)
	for i, z := range r.zn {
		ds2[i] *= z * (1 - z)
	}
}

// OutVJP adds do·v into ds2 and do·(z_{t+1}, 1) into the readout's gradient.
func (m *SecondOrder) OutVJP(rec any, do float64, ds2, grad []float64) {
	m.outVJP(rec.(*secondRecord).zn, do, ds2, grad)
}

var _ nn.Model = (*SecondOrder)(nil)
