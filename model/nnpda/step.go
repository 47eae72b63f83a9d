package nnpda

import (
	"math"

	"github.com/nspda/nspda/nn"
)

// An iteration runs read → controller → stack action, and the readout; the
// backward pass runs them in reverse. The controller works on the context
// u = r (third order) or u = [r; e_l] (second order) through zu = z ⊗ u:
//
//	z2 = σ(W_l · zu + Bs)              W_l: J × J·C, input l's block of Ws (or all of it)
//	a  = 2σ(wa_l · zu + Ba) − 1        wa_l: J·C
//
// which is baselines.md 1.2's Σ_{j,k} W[i,j,k,l] z_j r_k x_l with x one-hot.

// Step runs one iteration on input l from state s into s2 and returns the
// logit o. The stack moves only when last is set and l is not the end marker.
func (m *Model) Step(rec any, s, s2 []float64, l int, first, last bool) (o float64) {
	r := rec.(*record)
	m.fit(r)
	J, R := m.cfg.Hidden, m.r()
	lens, lens2 := s[J:], s2[J:]
	r.l, r.op, r.margin = l, opNone, math.Inf(1)
	copy(r.z, s[:J])
	m.read(r, r.u[:R], lens)
	if m.cfg.Order == 2 {
		clear(r.u[R:])
		r.u[R+l] = 1
	}
	outer(r.zu, r.z, r.u)
	ws, wa := m.block(m.Weights, l)
	z2 := s2[:J]
	JC := J * m.c
	for i := range z2 {
		z2[i] = nn.Sigmoid(nn.Dot(ws[i*JC:(i+1)*JC], r.zu) + m.Bs[i])
	}
	copy(r.z2, z2)
	copy(lens2, lens)
	if last && l < m.l {
		r.a = sigma1(nn.Dot(wa, r.zu) + m.Ba[0])
		m.act(r, lens, lens2)
	}
	// o = Wo·z2 + Bo (baselines.md 1.9 (b))
	return nn.Dot(m.Wo, z2) + m.Bo[0]
}

// StepVJP adds (∂s2/∂s)ᵀ ds2 into ds and (∂s2/∂θ)ᵀ ds2 into grad:
//
//	ga = ∂a · (1 − a²)/2,   gz_i = ∂z2_i · z2_i (1 − z2_i)
//	∂Bs += gz,  ∂W_l += gz ⊗ zu,  ∂Ba += ga,  ∂wa_l += ga zu
//	∂zu = W_lᵀ gz + ga wa_l,  ∂z_j += Σ_k ∂zu[j,k] u_k,  ∂u_k = Σ_j ∂zu[j,k] z_j
//
// with ∂a from the stack action and ∂r = ∂u[:R] passed on to the read.
func (m *Model) StepVJP(rec any, ds2, ds, grad []float64) {
	r := rec.(*record)
	J, R, C := m.cfg.Hidden, m.r(), m.c
	JC := J * C
	g := m.View(grad)
	ws, wa := m.block(m.Weights, r.l)
	gws, gwa := m.block(g, r.l)
	da := m.actVJP(r, ds[J:], ds2[J:])
	clear(r.dzu)
	if r.moved() && da != 0 {
		ga := da * (1 - r.a*r.a) / 2
		g.Ba[0] += ga
		nn.Axpy(gwa, ga, r.zu)
		nn.Axpy(r.dzu, ga, wa)
	}
	for i, z := range r.z2 {
		gz := ds2[i] * z * (1 - z)
		if gz == 0 {
			continue
		}
		g.Bs[i] += gz
		nn.Axpy(gws[i*JC:(i+1)*JC], gz, r.zu)
		nn.Axpy(r.dzu, gz, ws[i*JC:(i+1)*JC])
	}
	clear(r.du)
	for j, z := range r.z {
		row := r.dzu[j*C : (j+1)*C]
		ds[j] += nn.Dot(row, r.u)
		nn.Axpy(r.du, z, row)
	}
	m.readVJP(r, ds[J:], r.du[:R])
}

// StepJVP sets ds2 = (∂s2/∂s) ds:
//
//	dr = (∂r/∂len) dlen,  dzu = dz ⊗ u + z ⊗ [dr; 0]
//	dz2 = z2 ⊙ (1 − z2) ⊙ (W_l · dzu),  da = (1 − a²)/2 · wa_l · dzu
//
// and the stack action's derivative for the lengths.
func (m *Model) StepJVP(rec any, ds, ds2 []float64) {
	r := rec.(*record)
	J, R, C := m.cfg.Hidden, m.r(), m.c
	JC := J * C
	ws, wa := m.block(m.Weights, r.l)
	clear(r.du)
	m.readJVP(r, r.du[:R], ds[J:])
	for j, z := range r.z {
		row := r.dzu[j*C : (j+1)*C]
		for k, u := range r.u {
			row[k] = ds[j]*u + z*r.du[k]
		}
	}
	for i, z := range r.z2 {
		ds2[i] = z * (1 - z) * nn.Dot(ws[i*JC:(i+1)*JC], r.dzu)
	}
	da := 0.0
	if r.moved() {
		da = (1 - r.a*r.a) / 2 * nn.Dot(wa, r.dzu)
	}
	m.actJVP(r, ds2[J:], ds[J:], da)
}

// OutVJP adds do·∂o/∂s2 into ds2 and do·∂o/∂θ into grad, for o = Wo·z2 + Bo.
func (m *Model) OutVJP(rec any, do float64, ds2, grad []float64) {
	r := rec.(*record)
	g := m.View(grad)
	nn.ReadoutVJP(do, m.Wo, r.z2, ds2[:m.cfg.Hidden], g.Wo, g.Bo)
}

// outer sets zu[j·C + k] = z_j u_k.
func outer(zu, z, u []float64) {
	C := len(u)
	for j, zj := range z {
		row := zu[j*C : (j+1)*C]
		for k, uk := range u {
			row[k] = zj * uk
		}
	}
}
