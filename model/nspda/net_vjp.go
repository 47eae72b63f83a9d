package nspda

import "github.com/nspda/nspda/nn"

// The derivatives of Net's iteration (see Net for their definition):
// StepVJP and OutVJP for BPTT, StepJVP for the forward-mode estimators.

// grads returns the views of grad that match Ws, Bs, Wa, Ba, Wo, Bo.
func (n *Net) grads(grad []float64) (gWs, gBs, gWa, gBa, gWo, gBo []float64) {
	sz := n.sizes()
	nn.Cut(grad, sz[:], &gWs, &gBs, &gWa, &gBa, &gWo, &gBo)
	return
}

// StepVJP adds the iteration's transposed Jacobians applied to ds2 into ds
// and grad, in the reverse order of Step.
func (n *Net) StepVJP(recAny any, ds2, ds, grad []float64) {
	rec := recAny.(*record)
	J := n.J
	R := n.R()
	gWs, gBs, gWa, gBa, _, _ := n.grads(grad)
	dr, dr2, dp, dp2 := ds[J:J+R], ds2[J:J+R], ds[J+R:J+2*R], ds2[J+R:J+2*R]
	dS, dS2 := ds[J+2*R:], ds2[J+2*R:]
	// The pending read p' feeds s2's pending slot, and r' too at the last
	// iteration; r' = r otherwise.
	dpn := rec.dpn
	copy(dpn, dp2)
	if rec.last {
		for k, v := range dr2 {
			dpn[k] += v
		}
	} else {
		for k, v := range dr2 {
			dr[k] += v
		}
	}
	if !rec.soft.on {
		for k, v := range dS2 {
			dS[k] += v
		}
	}
	switch {
	case rec.soft.on:
		n.softVJP(rec, dpn, dS2, dS, ds, gWa, gBa)
	case rec.moved:
		if rec.noop {
			for k, v := range dpn {
				dr[k] += v
			}
		}
		if !n.NoReadGrad {
			if dv := rec.fprim * nn.Dot(rec.g, dpn); dv != 0 {
				gBa[rec.cstar] += dv
				n.backRow(n.Wa, gWa, n.A, rec.cstar, dv, rec, ds)
			}
		}
	case rec.first:
		for k, v := range dpn {
			dr[k] += v
		}
	default:
		for k, v := range dpn {
			dp[k] += v
		}
	}
	// State neurons, straight-through: dpre_i = dz'_i·σ'(pre_i).
	any := false
	for i, dz := range ds2[:J] {
		rec.dpre[i] = dz * rec.dsig[i]
		gBs[i] += rec.dpre[i]
		any = any || rec.dpre[i] != 0
	}
	if any {
		n.backAll(n.Ws, gWs, rec.dpre, rec, ds)
	}
}

// backRow propagates the gradient dpre of output neuron i of a contraction
// (weights W, gradient gW) into the state (ds[:J]), the read (ds[J:]) and the
// weights.
func (n *Net) backRow(W, gW []float64, nout, i int, dpre float64, rec *record, ds []float64) {
	J, l := n.J, rec.l
	dr := ds[J:]
	for j := 0; j < J; j++ {
		base, stride := n.rowBase(j, nout, l)
		off := base + i*stride
		ds[j] += dpre * n.rowDot(W, off, rec.r, l, inputLast)
		zj := rec.z[j]
		if zj == 0 {
			continue
		}
		for k, rk := range rec.r {
			dr[k] += dpre * zj * W[off+k]
			gW[off+k] += dpre * zj * rk
		}
		if n.Order == Second {
			gW[off+n.R()+l] += dpre * zj
		}
	}
}

// backAll propagates the gradients dpre of all J outputs of the state
// contraction into the state, the read and the weights. It walks the weights
// in storage order: for each source neuron j, the contiguous J×R block.
func (n *Net) backAll(W, gW, dpre []float64, rec *record, ds []float64) {
	J, R, l := n.J, n.R(), rec.l
	r := rec.r[:R]
	dr := ds[J : J+R]
	second := n.Order == Second
	for j := 0; j < J; j++ {
		base, stride := n.rowBase(j, J, l)
		block := W[base : base+J*stride]
		zj := rec.z[j]
		acc := 0.0
		if zj == 0 { // the common case: only ds[j] needs this block
			for i, d := range dpre[:J] {
				row := block[i*stride : i*stride+R : i*stride+R]
				dot := dotSmall(row, r)
				if second {
					dot += block[i*stride+R+l]
				}
				acc += d * dot
			}
			ds[j] += acc
			continue
		}
		gblock := gW[base : base+J*stride]
		for i, d := range dpre[:J] {
			off := i * stride
			row := block[off : off+R : off+R]
			dot := dotSmall(row, r)
			if second {
				dot += block[off+R+l]
				gblock[off+R+l] += d * zj
			}
			acc += d * dot
			dz := d * zj
			g := gblock[off : off+R : off+R]
			for k, w := range row {
				dr[k] += dz * w
				g[k] += dz * r[k]
			}
		}
		ds[j] += acc
	}
}

// dotSmall is Σ a_k b_k for the short vectors of one weight row.
func dotSmall(a, b []float64) float64 {
	b = b[:len(a)]
	s0, s1 := 0.0, 0.0
	k := 0
	for ; k+1 < len(a); k += 2 {
		s0 += a[k] * b[k]
		s1 += a[k+1] * b[k+1]
	}
	if k < len(a) {
		s0 += a[k] * b[k]
	}
	return s0 + s1
}

// StepJVP sets ds2 to the iteration's Jacobian applied to ds.
func (n *Net) StepJVP(recAny any, ds, ds2 []float64) {
	rec := recAny.(*record)
	J := n.J
	for i := 0; i < J; i++ {
		ds2[i] = rec.dsig[i] * n.rowJVP(n.Ws, J, i, rec, ds)
	}
	R := n.R()
	dr, dp := ds[J:J+R], ds[J+R:J+2*R]
	pn := ds2[J+R : J+2*R]
	dS, dS2 := ds[J+2*R:], ds2[J+2*R:]
	if !rec.soft.on {
		copy(dS2, dS)
	}
	switch {
	case rec.soft.on:
		n.softJVP(rec, ds, dS, pn, dS2)
	case rec.moved:
		if rec.noop {
			copy(pn, dr)
		} else {
			nn.Zero(pn)
		}
		if !n.NoReadGrad {
			dv := rec.fprim * n.rowJVP(n.Wa, n.A, rec.cstar, rec, ds)
			for k, g := range rec.g {
				pn[k] += g * dv
			}
		}
	case rec.first:
		copy(pn, dr)
	default:
		copy(pn, dp)
	}
	if rec.last {
		copy(ds2[J:J+R], pn)
	} else {
		copy(ds2[J:J+R], dr)
	}
}

// rowJVP is the directional derivative of pre-activation i of a contraction
// along ds = [dz; dr].
func (n *Net) rowJVP(W []float64, nout, i int, rec *record, ds []float64) float64 {
	J, l := n.J, rec.l
	dr := ds[J : J+n.R()]
	s := 0.0
	for j := 0; j < J; j++ {
		base, stride := n.rowBase(j, nout, l)
		off := base + i*stride
		if ds[j] != 0 {
			s += ds[j] * n.rowDot(W, off, rec.r, l, inputLast)
		}
		if zj := rec.z[j]; zj != 0 {
			for k, v := range dr {
				s += zj * W[off+k] * v
			}
		}
	}
	return s
}

// OutVJP adds the output's gradient: o = Wo·z' + bo.
func (n *Net) OutVJP(recAny any, do float64, ds2, grad []float64) {
	rec := recAny.(*record)
	_, _, _, _, gWo, gBo := n.grads(grad)
	for i, z := range rec.zn {
		ds2[i] += do * n.Wo[i]
		gWo[i] += do * z
	}
	gBo[0] += do
}
