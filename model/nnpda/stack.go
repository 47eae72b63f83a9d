package nnpda

import "math"

// The continuous stack (baselines.md 1.3). Segment s (0 at the bottom) has
// symbol m.sym[s] (discrete memory) and length len[s] (recurrent state); the
// slots at and above m.n are not live.

// read sets the read neurons rd (length R) from the top unit depth of the
// stack and records the window:
//
//	rd_k = Σ_{segments s in the window} (length of s inside the window) · [sym_s = k]
//	rd_⊥ = 1 − Σ_k rd_k = max(0, 1 − ℓ)
//
// Walking down from the top, every segment lies wholly inside the window
// until the one, w, that reaches depth 1; it contributes 1 − Σ_{s>w} len_s.
func (m *Model) read(r *record, rd, lens []float64) {
	clear(rd)
	rem := 1.0
	r.n, r.w, r.full = m.n, 0, false
	for s := m.n - 1; s >= 0; s-- {
		if lens[s] >= rem {
			rd[m.sym[s]] += rem
			r.margin = min(r.margin, lens[s]-rem, rem)
			rem, r.w, r.full = 0, s, true
			break
		}
		rd[m.sym[s]] += lens[s]
		rem -= lens[s]
	}
	if !r.full {
		r.margin = min(r.margin, rem)
	}
	rd[m.l] = rem
	r.syms = append(r.syms[:0], m.sym[r.w:m.n]...)
}

// readVJP adds (∂rd/∂len)ᵀ drd into dlens. A full window gives
// ∂rd_{sym_s}/∂len_s = 1 and ∂rd_{sym_w}/∂len_s = −1 for the segments s above
// w (len_w itself does not matter); otherwise ∂rd_{sym_s}/∂len_s = 1 and
// ∂rd_⊥/∂len_s = −1 for every segment.
func (m *Model) readVJP(r *record, dlens, drd []float64) {
	if r.full {
		ref := drd[r.syms[0]]
		for s := r.w + 1; s < r.n; s++ {
			dlens[s] += drd[r.syms[s-r.w]] - ref
		}
		return
	}
	for s := 0; s < r.n; s++ {
		dlens[s] += drd[r.syms[s]] - drd[m.l]
	}
}

// readJVP sets drd = (∂rd/∂len) dlens.
func (m *Model) readJVP(r *record, drd, dlens []float64) {
	clear(drd)
	if r.full {
		for s := r.w + 1; s < r.n; s++ {
			drd[r.syms[s-r.w]] += dlens[s]
			drd[r.syms[0]] -= dlens[s]
		}
		return
	}
	for s := 0; s < r.n; s++ {
		drd[r.syms[s]] += dlens[s]
		drd[m.l] -= dlens[s]
	}
}

// act applies action a with input symbol r.l to the stack, writing the new
// lengths into lens2 (a copy of lens) and moving the discrete memory:
//
//	a > ε:   push (l, a):  len2[n] = a
//	a < −ε:  pop |a|:      len2[s] = 0 for the segments s > b it removes,
//	                       len2[b] = Σ_{s ≥ b} len_s + a for the one it shortens
//	else:    nothing
//
// A pop of more than ℓ empties the stack (b = −1).
func (m *Model) act(r *record, lens, lens2 []float64) {
	a, eps := r.a, m.cfg.Epsilon
	r.margin = min(r.margin, math.Abs(a-eps), math.Abs(a+eps))
	r.n0 = m.n
	switch {
	case a > eps && m.n == m.depth:
		r.op = opDrop
	case a > eps:
		r.op = opPush
		lens2[m.n] = a
		m.sym[m.n] = r.l
		m.n++
	case a < -eps:
		r.op = opPop
		rem, s := -a, m.n-1
		for ; s >= 0 && lens[s] <= rem; s-- {
			r.margin = min(r.margin, rem-lens[s])
			rem -= lens[s]
			lens2[s] = 0
		}
		if s >= 0 {
			r.margin = min(r.margin, lens[s]-rem)
			lens2[s] = lens[s] - rem
		}
		r.b, m.n = s, s+1
	default:
		r.op = opNoop
	}
}

// actVJP adds (∂len2/∂len)ᵀ dlens2 into dlens and returns ∂⟨dlens2, len2⟩/∂a.
func (m *Model) actVJP(r *record, dlens, dlens2 []float64) (da float64) {
	switch r.op {
	case opPush:
		for s, v := range dlens2 {
			if s != r.n0 {
				dlens[s] += v
			}
		}
		return dlens2[r.n0]
	case opPop:
		lo := max(r.b, 0)
		for s, v := range dlens2 {
			if s < lo || s >= r.n0 {
				dlens[s] += v
			}
		}
		if r.b < 0 {
			return 0
		}
		g := dlens2[r.b]
		for s := r.b; s < r.n0; s++ {
			dlens[s] += g
		}
		return g
	}
	for s, v := range dlens2 {
		dlens[s] += v
	}
	return 0
}

// actJVP sets dlens2 = (∂len2/∂len) dlens + (∂len2/∂a) da.
func (m *Model) actJVP(r *record, dlens2, dlens []float64, da float64) {
	copy(dlens2, dlens)
	switch r.op {
	case opPush:
		dlens2[r.n0] = da
	case opPop:
		sum := 0.0
		for s := max(r.b, 0); s < r.n0; s++ {
			sum += dlens[s]
			dlens2[s] = 0
		}
		if r.b >= 0 {
			dlens2[r.b] = sum + da
		}
	}
}

// moved reports whether the iteration's action changed the stack, so that
// the action neuron has a derivative.
func (r *record) moved() bool { return r.op == opPush || r.op == opPop }
