package rnn

import (
	"math"
	"math/rand/v2"

	"github.com/nspda/nspda/nn"
)

// GRU is the gated recurrent unit in the form of Chung et al. 2014, the
// reset gate applied before the recurrent matrix ("gru"), or with
// multiplicative integration ("mi-gru"). Its state is h (H units). The
// blocks are stacked [z; r; n] in W (X×3H), U (3H×H) and b (3H); U_zr is
// the first 2H rows of U and U_n the last H. Additively (baselines.md §4):
//
//	z = σ(W_z x + U_z h_{t−1} + b_z)       r = σ(W_r x + U_r h_{t−1} + b_r)
//	n = tanh(W_n x + U_n (r ⊙ h_{t−1}) + b_n)
//	h_t = (1 − z) ⊙ h_{t−1} + z ⊙ n
//
// With MI (baselines.md §3, the two TF implementations and, as recalled,
// the paper) each of the two pre-activations W x, U y is replaced by the
// general MI block, y being h_{t−1} for [z; r] and r ⊙ h_{t−1} for n.
type GRU struct{ base }

// gruRecord holds one iteration's input, previous state, U h (rows z, r)
// and U_n (r ⊙ h) (rows n), gates [z; r; n], r ⊙ h and the new state.
type gruRecord struct {
	l           int
	h, uh, gate []float64
	rh, hn      []float64
	d, drh      []float64 // scratch, 3H and H
}

// StateSize is H.
func (m *GRU) StateSize() int { return m.lay.H }

// NewRecord returns a record for one iteration.
func (m *GRU) NewRecord() any {
	H := m.lay.H
	v := make([]float64, 13*H)
	return &gruRecord{
		h: v[:H], uh: v[H : 4*H], gate: v[4*H : 7*H], rh: v[7*H : 8*H], hn: v[8*H : 9*H],
		d: v[9*H : 12*H], drh: v[12*H : 13*H],
	}
}

// Start sets h_0 = 0. rng is unused.
func (m *GRU) Start(s []float64, rng *rand.Rand) { nn.Zero(s) }

// thirds splits a 3H vector into its blocks z, r, n.
func thirds(v []float64, H int) (z, r, n []float64) {
	return v[:H], v[H : 2*H], v[2*H : 3*H]
}

// Step computes s2 = h_t from s = h_{t−1} and input l, and returns
// o = v·h_t + c. s and s2 must not overlap.
func (m *GRU) Step(rec any, s, s2 []float64, l int, first, last bool) float64 {
	r := rec.(*gruRecord)
	H := m.lay.H
	r.l = l
	copy(r.h, s)
	Uzr, Un := m.p.U[:2*H*H], m.p.U[2*H*H:]
	mulVec(r.uh[:2*H], Uzr, r.h)
	m.integrate(r.gate[:2*H], r.uh[:2*H], l, 0)
	z, rg, n := thirds(r.gate, H)
	for k := range rg {
		z[k], rg[k] = nn.Sigmoid(z[k]), nn.Sigmoid(rg[k])
		r.rh[k] = rg[k] * r.h[k]
	}
	mulVec(r.uh[2*H:], Un, r.rh)
	m.integrate(n, r.uh[2*H:], l, 2*H)
	for k, h := range r.h {
		n[k] = math.Tanh(n[k])
		r.hn[k] = h + z[k]*(n[k]-h)
	}
	copy(s2, r.hn)
	return m.out(r.hn)
}

// StepVJP adds (∂h_t/∂h_{t−1})ᵀ dh into ds and (∂h_t/∂θ)ᵀ dh into grad,
// dh = ds2, in the reverse order of Step:
//
//	da_z = dh ⊙ (n − h_{t−1}) ⊙ z(1−z),  da_n = dh ⊙ z ⊙ (1−n²),  ds += dh ⊙ (1−z)
//	n block: duh_n;  dU_n += duh_n (r ⊙ h)ᵀ;  d(r⊙h) = U_nᵀ duh_n
//	da_r = d(r⊙h) ⊙ h_{t−1} ⊙ r(1−r),  ds += d(r⊙h) ⊙ r
//	[z; r] block: duh_zr;  dU_zr += duh_zr h_{t−1}ᵀ;  ds += U_zrᵀ duh_zr
func (m *GRU) StepVJP(rec any, ds2, ds, grad []float64) {
	r := rec.(*gruRecord)
	H := m.lay.H
	g := m.lay.bind(grad)
	z, rg, n := thirds(r.gate, H)
	daz, dar, dan := thirds(r.d, H)
	for k, d := range ds2[:H] {
		h := r.h[k]
		daz[k] = d * (n[k] - h) * z[k] * (1 - z[k])
		dan[k] = d * z[k] * (1 - n[k]*n[k])
		ds[k] += d * (1 - z[k])
	}
	m.integrateVJP(&g, dan, r.uh[2*H:], dan, r.l, 2*H)
	outerAdd(g.U[2*H*H:], dan, r.rh)
	nn.Zero(r.drh)
	mulTVecAdd(r.drh, m.p.U[2*H*H:], dan)
	for k, d := range r.drh {
		dar[k] = d * r.h[k] * rg[k] * (1 - rg[k])
		ds[k] += d * rg[k]
	}
	dzr := r.d[:2*H]
	m.integrateVJP(&g, dzr, r.uh[:2*H], dzr, r.l, 0)
	outerAdd(g.U[:2*H*H], dzr, r.h)
	mulTVecAdd(ds[:H], m.p.U[:2*H*H], dzr)
}

// StepJVP sets ds2 = (∂h_t/∂h_{t−1}) δh, δh = ds:
//
//	δz = z(1−z) δa_z,  δr = r(1−r) δa_r   with δa_zr = (∂a/∂uh) U_zr δh
//	δ(r⊙h) = δr ⊙ h_{t−1} + r ⊙ δh,  δn = (1−n²) (∂a/∂uh) U_n δ(r⊙h)
//	δh_t = (1−z) ⊙ δh + δz ⊙ (n − h_{t−1}) + z ⊙ δn
func (m *GRU) StepJVP(rec any, ds, ds2 []float64) {
	r := rec.(*gruRecord)
	H := m.lay.H
	z, rg, n := thirds(r.gate, H)
	daz, dar, dan := thirds(r.d, H)
	mulVec(r.d[:2*H], m.p.U[:2*H*H], ds)
	m.integrateJVP(r.d[:2*H], r.l, 0)
	for k := range daz {
		daz[k] *= z[k] * (1 - z[k])
		dar[k] *= rg[k] * (1 - rg[k])
		r.drh[k] = dar[k]*r.h[k] + rg[k]*ds[k]
	}
	mulVec(dan, m.p.U[2*H*H:], r.drh)
	m.integrateJVP(dan, r.l, 2*H)
	for k, d := range ds {
		dn := (1 - n[k]*n[k]) * dan[k]
		ds2[k] = (1-z[k])*d + daz[k]*(n[k]-r.h[k]) + z[k]*dn
	}
}

// OutVJP adds do·v into ds2 and do·(h_t, 1) into the readout's gradient.
func (m *GRU) OutVJP(rec any, do float64, ds2, grad []float64) {
	m.outVJP(rec.(*gruRecord).hn, do, ds2, grad)
}

var _ nn.Model = (*GRU)(nil)
