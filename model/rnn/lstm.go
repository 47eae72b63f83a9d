package rnn

import (
	"math"
	"math/rand/v2"

	"github.com/nspda/nspda/nn"
)

// LSTM is the long short-term memory with a forget gate ("lstm"), with
// diagonal peepholes ("lstm-peephole"), or with multiplicative integration
// ("mi-lstm"). Its state is [h; c] (2H). The four gate blocks are stacked
// [i; f; g; o] in W (X×4H), U (4H×H) and b (4H); a_• is a block's
// pre-activation, computed additively (baselines.md §4) or by the MI block
// (§3):
//
//	i = σ(a_i + p_i ⊙ c_{t−1})    f = σ(a_f + p_f ⊙ c_{t−1})    g = tanh(a_g)
//	c_t = f ⊙ c_{t−1} + i ⊙ g
//	o = σ(a_o + p_o ⊙ c_t)                  (the output gate sees the new cell)
//	h_t = o ⊙ tanh(c_t)
//
// The peephole terms (Gers & Schmidhuber 2000, baselines.md §4) are present
// only in lstm-peephole, whose P holds [p_i; p_f; p_o].
type LSTM struct{ base }

// lstmRecord holds one iteration's input, previous state, U h, gates
// [i; f; g; o], new cell, tanh of the new cell, and new h.
type lstmRecord struct {
	l          int
	h, c, uh   []float64
	gate       []float64 // [i; f; g; o], activated
	cn, tc, hn []float64
	d          []float64 // scratch, 4H
}

// StateSize is 2H: [h; c].
func (m *LSTM) StateSize() int { return 2 * m.lay.H }

// NewRecord returns a record for one iteration.
func (m *LSTM) NewRecord() any {
	H := m.lay.H
	v := make([]float64, 14*H)
	return &lstmRecord{
		h: v[0:H], c: v[H : 2*H], uh: v[2*H : 6*H], gate: v[6*H : 10*H],
		cn: v[10*H : 11*H], tc: v[11*H : 12*H], hn: v[12*H : 13*H], d: make([]float64, 4*H),
	}
}

// Start sets h_0 = c_0 = 0. rng is unused.
func (m *LSTM) Start(s []float64, rng *rand.Rand) { nn.Zero(s) }

// quarters splits a 4H vector into its gate blocks i, f, g, o.
func quarters(v []float64, H int) (i, f, g, o []float64) {
	return v[:H], v[H : 2*H], v[2*H : 3*H], v[3*H : 4*H]
}

// peepholes returns p_i, p_f, p_o, or nils without peepholes.
func (m *LSTM) peepholes(p []float64) (pi, pf, po []float64) {
	if !m.lay.Peep {
		return nil, nil, nil
	}
	H := m.lay.H
	return p[:H], p[H : 2*H], p[2*H : 3*H]
}

// Step computes s2 = [h_t; c_t] from s = [h_{t−1}; c_{t−1}] and input l, and
// returns o = v·h_t + c. s and s2 must not overlap.
func (m *LSTM) Step(rec any, s, s2 []float64, l int, first, last bool) float64 {
	r := rec.(*lstmRecord)
	H := m.lay.H
	r.l = l
	copy(r.h, s[:H])
	copy(r.c, s[H:])
	mulVec(r.uh, m.p.U, r.h)
	m.integrate(r.gate, r.uh, l, 0)
	gi, gf, gg, gO := quarters(r.gate, H)
	pi, pf, po := m.peepholes(m.p.P)
	for k, c := range r.c {
		ai, af := gi[k], gf[k]
		if pi != nil {
			ai += pi[k] * c
			af += pf[k] * c
		}
		gi[k], gf[k], gg[k] = nn.Sigmoid(ai), nn.Sigmoid(af), math.Tanh(gg[k])
		cn := gf[k]*c + gi[k]*gg[k]
		ao := gO[k]
		if po != nil {
			ao += po[k] * cn
		}
		gO[k] = nn.Sigmoid(ao)
		r.cn[k], r.tc[k] = cn, math.Tanh(cn)
		r.hn[k] = gO[k] * r.tc[k]
	}
	copy(s2[:H], r.hn)
	copy(s2[H:], r.cn)
	return m.out(r.hn)
}

// StepVJP adds (∂s2/∂s)ᵀ ds2 into ds and (∂s2/∂θ)ᵀ ds2 into grad. With
// dh, dc the two halves of ds2:
//
//	da_o = dh ⊙ tanh(c_t) ⊙ o(1−o)
//	dc̄   = dc + dh ⊙ o ⊙ (1 − tanh²c_t) + p_o ⊙ da_o      (total ∂/∂c_t)
//	da_g = dc̄ ⊙ i ⊙ (1−g²),  da_i = dc̄ ⊙ g ⊙ i(1−i),  da_f = dc̄ ⊙ c_{t−1} ⊙ f(1−f)
//	dc_{t−1} += dc̄ ⊙ f + p_i ⊙ da_i + p_f ⊙ da_f
//	dp_i += da_i ⊙ c_{t−1},  dp_f += da_f ⊙ c_{t−1},  dp_o += da_o ⊙ c_t
//
// then through the block to W[l], b (, α, β) and duh, and
// dU += duh h_{t−1}ᵀ, dh_{t−1} += Uᵀ duh.
func (m *LSTM) StepVJP(rec any, ds2, ds, grad []float64) {
	r := rec.(*lstmRecord)
	H := m.lay.H
	g := m.lay.bind(grad)
	dh, dc := ds2[:H], ds2[H:]
	dhp, dcp := ds[:H], ds[H:]
	gi, gf, gg, gO := quarters(r.gate, H)
	dai, daf, dag, dao := quarters(r.d, H)
	pi, pf, po := m.peepholes(m.p.P)
	gpi, gpf, gpo := m.peepholes(g.P)
	for k := range dh {
		i, f, gk, o, tc := gi[k], gf[k], gg[k], gO[k], r.tc[k]
		dao[k] = dh[k] * tc * o * (1 - o)
		dcn := dc[k] + dh[k]*o*(1-tc*tc)
		if po != nil {
			dcn += po[k] * dao[k]
		}
		dag[k] = dcn * i * (1 - gk*gk)
		dai[k] = dcn * gk * i * (1 - i)
		daf[k] = dcn * r.c[k] * f * (1 - f)
		dcp[k] += dcn * f
		if pi != nil {
			dcp[k] += pi[k]*dai[k] + pf[k]*daf[k]
			gpi[k] += dai[k] * r.c[k]
			gpf[k] += daf[k] * r.c[k]
			gpo[k] += dao[k] * r.cn[k]
		}
	}
	m.integrateVJP(&g, r.d, r.uh, r.d, r.l, 0)
	outerAdd(g.U, r.d, r.h)
	mulTVecAdd(dhp, m.p.U, r.d)
}

// StepJVP sets ds2 = (∂s2/∂s) ds. With δh, δc the halves of ds and
// δa = (∂a/∂uh) U δh:
//
//	δi = i(1−i)(δa_i + p_i ⊙ δc),  δf = f(1−f)(δa_f + p_f ⊙ δc),  δg = (1−g²) δa_g
//	δc_t = δf ⊙ c_{t−1} + f ⊙ δc + δi ⊙ g + i ⊙ δg
//	δo = o(1−o)(δa_o + p_o ⊙ δc_t)
//	δh_t = δo ⊙ tanh(c_t) + o ⊙ (1 − tanh²c_t) ⊙ δc_t
func (m *LSTM) StepJVP(rec any, ds, ds2 []float64) {
	r := rec.(*lstmRecord)
	H := m.lay.H
	dh, dc := ds[:H], ds[H:]
	mulVec(r.d, m.p.U, dh)
	m.integrateJVP(r.d, r.l, 0)
	gi, gf, gg, gO := quarters(r.gate, H)
	dai, daf, dag, dao := quarters(r.d, H)
	pi, pf, po := m.peepholes(m.p.P)
	for k := range dh {
		i, f, gk, o, tc := gi[k], gf[k], gg[k], gO[k], r.tc[k]
		ai, af, ao := dai[k], daf[k], dao[k]
		if pi != nil {
			ai += pi[k] * dc[k]
			af += pf[k] * dc[k]
		}
		di, df, dg := i*(1-i)*ai, f*(1-f)*af, (1-gk*gk)*dag[k]
		dcn := df*r.c[k] + f*dc[k] + di*gk + i*dg
		if po != nil {
			ao += po[k] * dcn
		}
		do := o * (1 - o) * ao
		ds2[k] = do*tc + o*(1-tc*tc)*dcn
		ds2[H+k] = dcn
	}
}

// OutVJP adds do·v into the h half of ds2 and do·(h_t, 1) into the
// readout's gradient.
func (m *LSTM) OutVJP(rec any, do float64, ds2, grad []float64) {
	m.outVJP(rec.(*lstmRecord).hn, do, ds2[:m.lay.H], grad)
}

var _ nn.Model = (*LSTM)(nil)
