package stackrnn

import (
	"math"

	"github.com/nspda/nspda/nn"
)

// An iteration runs three kernels, each with a forward and a backward pass
// (baselines.md 2.1: h from (x, h_prev, s_prev); actions and push value from
// the new h; then the memories):
//
//	hidden:   h = σ(U x + [R h_prev] + P rd),  rd the k cells at each memory's head
//	control:  a^q = softmax(A_q h), d_q = σ(D_q h)        (only when the memories move)
//	memory:   s2^q = Σ_c a^q_c · action_c(s^q, d_q)       (only when the memories move)
//
// and the readout o = Wo·h + Bo. Backward passes run in the reverse order.

// Step runs one iteration on input l from state s into s2 and returns the
// logit o. The memories move only when last is set and l is not the end
// marker.
func (m *Model) Step(rec any, s, s2 []float64, l int, first, last bool) (o float64) {
	r := rec.(*record)
	m.fit(r)
	H := m.cfg.Hidden
	r.l, r.moved, r.hard = l, last && l < m.x-1, m.hard
	mem, mem2 := s[H:], s2[H:]
	copy(r.hPrev, s[:H])
	m.gatherReads(r.rd, mem)
	h := s2[:H]
	m.hiddenForward(h, r)
	copy(r.h, h)
	if !r.moved {
		copy(mem2, mem)
	} else {
		m.controlForward(r)
		copy(r.mem, mem)
		D, na := m.depth, m.na
		for q := range m.cfg.Stacks {
			update(m.acts, mem2[q*D:(q+1)*D], mem[q*D:(q+1)*D], r.a[q*na:(q+1)*na], r.d[q])
		}
	}
	// o = Wo·h + Bo (baselines.md 2.6 [INFER])
	return nn.Dot(m.Wo, h) + m.Bo[0]
}

// gatherReads copies the k cells from each memory's head into rd.
func (m *Model) gatherReads(rd, mem []float64) {
	for q := range m.cfg.Stacks {
		at := q*m.depth + m.head
		copy(rd[q*ReadDepth:(q+1)*ReadDepth], mem[at:at+ReadDepth])
	}
}

// scatterReads adds drd into the gradient of the cells gatherReads read.
func (m *Model) scatterReads(dmem, drd []float64) {
	for q := range m.cfg.Stacks {
		at := q*m.depth + m.head
		for c := range ReadDepth {
			dmem[at+c] += drd[q*ReadDepth+c]
		}
	}
}

// hiddenForward computes (paper eq. 6, baselines.md 2.1)
//
//	h_i = σ(U[l,i] + Σ_j P[i,j] rd_j + Σ_j R[i,j] h_prev_j)
func (m *Model) hiddenForward(h []float64, r *record) {
	H, pk := m.cfg.Hidden, m.cfg.Stacks*ReadDepth
	u := m.U[r.l*H : (r.l+1)*H]
	for i := range h {
		v := u[i] + nn.Dot(m.P[i*pk:(i+1)*pk], r.rd)
		if m.cfg.Recurrent {
			v += nn.Dot(m.R[i*H:(i+1)*H], r.hPrev)
		}
		h[i] = nn.Sigmoid(v)
	}
}

// hiddenVJP adds the gradients of hiddenForward given dh = ∂/∂h:
//
//	g_i = dh_i h_i (1−h_i);  ∂U[l,i] += g_i;  ∂P[i,j] += g_i rd_j;  ∂rd_j += P[i,j] g_i;
//	∂R[i,j] += g_i h_prev_j;  ∂h_prev_j += R[i,j] g_i
func (m *Model) hiddenVJP(ds []float64, g Weights, dh []float64, r *record) {
	H, pk := m.cfg.Hidden, m.cfg.Stacks*ReadDepth
	gu := g.U[r.l*H : (r.l+1)*H]
	clear(r.drd)
	for i, h := range r.h {
		gi := dh[i] * h * (1 - h)
		if gi == 0 {
			continue
		}
		gu[i] += gi
		nn.Axpy(g.P[i*pk:(i+1)*pk], gi, r.rd)
		nn.Axpy(r.drd, gi, m.P[i*pk:(i+1)*pk])
		if m.cfg.Recurrent {
			nn.Axpy(g.R[i*H:(i+1)*H], gi, r.hPrev)
			nn.Axpy(ds[:H], gi, m.R[i*H:(i+1)*H])
		}
	}
	m.scatterReads(ds[H:], r.drd)
}

// controlForward computes each memory's actions and push value from h:
//
//	a^q = softmax(A_q h)  (or the one-hot of its argmax when rounding),  d_q = σ(D_q h)
func (m *Model) controlForward(r *record) {
	H, na := m.cfg.Hidden, m.na
	for q := range m.cfg.Stacks {
		rows := m.C[q*(na+1)*H : (q+1)*(na+1)*H]
		a := r.a[q*na : (q+1)*na]
		for c := range a {
			a[c] = nn.Dot(rows[c*H:(c+1)*H], r.h)
		}
		if r.hard {
			oneHotArgmax(a)
		} else {
			softmax(a)
		}
		r.d[q] = nn.Sigmoid(nn.Dot(rows[na*H:], r.h))
	}
}

// memoryVJP is the backward pass of the memory update and of controlForward:
// it adds the memories' gradient into dmem, the control rows' into g.C, and
// (∂a/∂h)ᵀ, (∂d/∂h)ᵀ terms into dh. With ga = ∂/∂a and gd = ∂/∂d from
// updateVJP:
//
//	∂logit_c = a_c (ga_c − Σ_c' a_c' ga_c')   (0 when rounded)
//	∂(D_q h) = gd · d (1−d)
//	∂C[row] += ∂row · h,   dh += Σ_rows ∂row · C[row]
func (m *Model) memoryVJP(dmem, dh []float64, g Weights, dmem2 []float64, r *record) {
	H, D, na := m.cfg.Hidden, m.depth, m.na
	for q := range m.cfg.Stacks {
		gctl := r.gctl[q*(na+1) : (q+1)*(na+1)]
		a := r.a[q*na : (q+1)*na]
		gd := updateVJP(m.acts, dmem[q*D:(q+1)*D], gctl[:na], dmem2[q*D:(q+1)*D], r.mem[q*D:(q+1)*D], a, r.d[q])
		if r.hard {
			clear(gctl[:na])
		} else {
			softmaxVJP(gctl[:na], a)
		}
		gctl[na] = gd * r.d[q] * (1 - r.d[q])
	}
	for row, gv := range r.gctl {
		if gv == 0 {
			continue
		}
		nn.Axpy(g.C[row*H:(row+1)*H], gv, r.h)
		nn.Axpy(dh, gv, m.C[row*H:(row+1)*H])
	}
}

// StepVJP adds (∂s2/∂s)ᵀ ds2 into ds and (∂s2/∂θ)ᵀ ds2 into grad.
func (m *Model) StepVJP(rec any, ds2, ds, grad []float64) {
	r := rec.(*record)
	g := m.View(grad)
	H := m.cfg.Hidden
	copy(r.dh, ds2[:H])
	if r.moved {
		m.memoryVJP(ds[H:], r.dh, g, ds2[H:], r)
	} else {
		nn.Axpy(ds[H:], 1, ds2[H:])
	}
	m.hiddenVJP(ds, g, r.dh, r)
}

// StepJVP sets ds2 = (∂s2/∂s) ds:
//
//	dh2 = h ⊙ (1−h) ⊙ (P drd + R dh)
//	da^q_c = a_c (dlogit_c − Σ_c' a_c' dlogit_c'),  dlogit = A_q dh2  (0 when rounded)
//	dd_q = d_q (1−d_q) D_q dh2
//	ds2^q = Σ_c a_c action_c(ds^q, dd_q) + da_c action_c(s^q, d_q)
func (m *Model) StepJVP(rec any, ds, ds2 []float64) {
	r := rec.(*record)
	H, D, na, pk := m.cfg.Hidden, m.depth, m.na, m.cfg.Stacks*ReadDepth
	m.gatherReads(r.drd, ds[H:])
	dh2 := ds2[:H]
	for i, h := range r.h {
		v := nn.Dot(m.P[i*pk:(i+1)*pk], r.drd)
		if m.cfg.Recurrent {
			v += nn.Dot(m.R[i*H:(i+1)*H], ds[:H])
		}
		dh2[i] = h * (1 - h) * v
	}
	if !r.moved {
		copy(ds2[H:], ds[H:])
		return
	}
	for q := range m.cfg.Stacks {
		dctl := r.gctl[q*(na+1) : (q+1)*(na+1)]
		for c := range dctl {
			dctl[c] = nn.Dot(m.C[(q*(na+1)+c)*H:(q*(na+1)+c+1)*H], dh2)
		}
		a := r.a[q*na : (q+1)*na]
		if r.hard {
			clear(dctl[:na])
		} else {
			softmaxVJP(dctl[:na], a) // the softmax Jacobian is symmetric
		}
		dd := r.d[q] * (1 - r.d[q]) * dctl[na]
		updateJVP(m.acts, ds2[H+q*D:H+(q+1)*D], ds[H+q*D:H+(q+1)*D], r.mem[q*D:(q+1)*D], a, dctl[:na], r.d[q], dd)
	}
}

// OutVJP adds do·∂o/∂s2 into ds2 and do·∂o/∂θ into grad, for o = Wo·h + Bo.
func (m *Model) OutVJP(rec any, do float64, ds2, grad []float64) {
	r := rec.(*record)
	g := m.View(grad)
	nn.ReadoutVJP(do, m.Wo, r.h, ds2[:m.cfg.Hidden], g.Wo, g.Bo)
}

// softmax replaces v by softmax(v).
func softmax(v []float64) {
	mx := v[0]
	for _, x := range v[1:] {
		mx = max(mx, x)
	}
	sum := 0.0
	for i, x := range v {
		v[i] = math.Exp(x - mx)
		sum += v[i]
	}
	for i := range v {
		v[i] /= sum
	}
}

// oneHotArgmax replaces v by the one-hot of its first largest component.
func oneHotArgmax(v []float64) {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	clear(v)
	v[best] = 1
}

// softmaxVJP replaces g by Jᵀ g = a ⊙ (g − ⟨a, g⟩), J the Jacobian of the
// softmax at output a (J is symmetric, so this is also J g).
func softmaxVJP(g, a []float64) {
	ag := nn.Dot(a, g)
	for c := range g {
		g[c] = a[c] * (g[c] - ag)
	}
}
