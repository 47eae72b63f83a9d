package nspda

import (
	"math/rand/v2"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/stack"
)

// Net is the NSPDA as the gradient estimators see it (nn.Net): the same
// forward pass as Runner — binary states, ternary actions, a real digital
// stack — with derivatives defined as follows (docs/design.md, "Gradients"):
//
//   - State neurons: straight-through. The forward value is the threshold
//     z' = [pre > 0]; the derivative is σ'(pre).
//   - Actions: the action neurons are computed at a symbol's first iteration,
//     from the state before the symbol (so that δ(q, a, k) = (q', op) gets its
//     op from q, as in the PDA, whatever refinement does to the state); the
//     stack moves then, and the new read waits in a pending vector p until
//     the symbol's last iteration, when it becomes r. The recurrent state is
//     s = [z; r; p]; every iteration of a symbol sees the same read r.
//   - Read neurons: the pending read's derivative is that of
//     the one-step soft stack r' = p_noop·r + p_push·e(x) + p_pop·r_below
//     evaluated at the discrete action taken: ∂r'/∂r = I after a no-op and 0
//     after a push or pop, and ∂r'/∂v* = f̂'(v*)·g, where v* is the decisive
//     action neuron's pre-activation, f̂(v) = 2σ(v)−1, and g = e(x) − r on the
//     push side (f̂(v*) ≥ 0 for a no-op) or r − r_below on the pop side.
//     e(x) and r_below are the reads a push of x or a pop would have given,
//     with this step's read values.
//   - At the end marker the stack does not move: r' = r.
//
// NoReadGrad sets ∂r'/∂v* to 0 (the pending read's derivative through the
// decisive action neuron), an ablation of that gradient path; the forward
// pass and every other derivative are unchanged.
//
// SoftStack replaces, in training mode only, the digital stack and its
// one-step soft derivative by a superposition stack (soft.go, docs/design.md
// section 8b): the stack's cells join the recurrent state, s = [z; r; p; S],
// and the action neurons get credit for every later read their actions
// change. Evaluation mode (Start with a nil rng) stays digital.
//
// In training mode (Start with an rng) every read neuron's value is drawn
// afresh after each action from the paper's intervals; in evaluation mode the
// midpoints are used.
type Net struct {
	*Model
	// NoReadGrad zeroes ∂r'/∂v*: the action neurons get no gradient from
	// the reads their actions cause (with SoftStack: ∂π/∂v = 0).
	NoReadGrad bool
	// SoftStack trains through the superposition stack (see above).
	SoftStack bool
	// Beta is the superposition stack's sharpness β (≤ 0: 1).
	Beta  float64
	stack stack.Digital
	rng   *rand.Rand
	soft  bool // this string runs on the superposition stack
	// digital: a SoftStack net trains on the digital stack (SetSoft).
	digital bool
	maxLen  int // the superposition stack holds maxLen+2 cells (Reserve)
}

var _ nn.Model = (*Net)(nil)

// NewNet wraps m for training; it shares m's parameters.
func NewNet(m *Model) *Net { return &Net{Model: m, maxLen: DefaultMaxLen} }

// record holds one iteration.
type record struct {
	l     int
	first bool
	last  bool
	z, r  []float64 // state before the iteration
	nz    []int     // indices j with z[j] != 0
	pre   []float64 // state pre-activations
	dsig  []float64 // σ'(pre): the straight-through derivative of each state neuron
	dpre  []float64 // scratch for StepVJP
	zn    []float64 // new (binary) state
	act   []float64 // action pre-activations (last iteration only)
	moved bool      // the action can move the stack (first iteration, not $)
	noop  bool      // the action taken was a no-op
	cstar int       // decisive action neuron
	fprim float64   // f̂'(v*) = 2σ'(v*)
	g     []float64 // ∂r'/∂f̂ at the action taken
	rn    []float64 // the pending read after the iteration
	base  []float64 // this step's drawn read values
	dpn   []float64 // scratch for StepVJP
	soft  softRecord
}

// Params is the flat parameter vector.
func (n *Net) Params() []float64 { return n.Model.Params }

// StateSize is J + 2R: the state neurons, the read neurons and the pending
// read; with SoftStack, plus the D·L cells of the superposition stack.
func (n *Net) StateSize() int { return n.J + 2*n.R() + n.cellsSize() }

// InputSize is L+1: the alphabet and the end marker.
func (n *Net) InputSize() int { return n.X() }

// Kind is "nspda".
func (n *Net) Kind() string { return "nspda" }

// Alphabet is the model's alphabet.
func (n *Net) Alphabet() []rune { return n.Model.Alphabet }

// Config is the model's shape and evaluation settings.
func (n *Net) Config() any {
	return struct {
		Order      int `json:"order"`
		J          int `json:"J"`
		A          int `json:"A"`
		EvalRefine int `json:"eval_refine"`
	}{int(n.Order), n.J, n.A, n.EvalRefine}
}

// NewRecord returns scratch space for one iteration.
func (n *Net) NewRecord() any {
	J, R := n.J, n.R()
	return &record{
		z: make([]float64, J), r: make([]float64, R), nz: make([]int, 0, J),
		pre: make([]float64, J), dsig: make([]float64, J), dpre: make([]float64, J), zn: make([]float64, J), act: make([]float64, n.A),
		g: make([]float64, R), rn: make([]float64, R), base: make([]float64, R), dpn: make([]float64, R),
	}
}

// Start resets the stack and writes the initial state: neuron 0 on, the read
// of an empty stack.
func (n *Net) Start(s []float64, rng *rand.Rand) {
	n.rng = rng
	n.soft = n.SoftStack && !n.digital && rng != nil
	n.stack.Reset()
	nn.Zero(s[:n.J])
	s[0] = 1
	J, R := n.J, n.R()
	r := s[J : J+R]
	vTop, vPop := n.drawReads(r)
	fillRead(r, r, -1, -1, vTop, vPop)
	copy(s[J+R:J+2*R], r)
	nn.Zero(s[J+2*R:])
}

// drawReads draws one step's read values: base[k] is what neuron k reads if
// it is neither on top nor just popped, and top and popped are the values of
// those two. Evaluation mode uses the intervals' midpoints.
func (n *Net) drawReads(base []float64) (top, popped float64) {
	if n.rng == nil {
		for k := range base {
			base[k] = stack.EvalReads.Other
		}
		return stack.EvalReads.Top, stack.EvalReads.Popped
	}
	for k := range base {
		base[k] = uniform(n.rng, stack.OtherRange)
	}
	return uniform(n.rng, stack.TopRange), uniform(n.rng, stack.PoppedRange)
}

// fillRead writes into dst the read of a stack whose top symbol is t and
// whose last action popped p (−1: none; t = −1: the stack is empty, and ⊥,
// the last neuron, is on top).
func fillRead(dst, base []float64, t, p int, vTop, vPop float64) {
	copy(dst, base)
	if p >= 0 {
		dst[p] = vPop
	}
	if t < 0 {
		t = len(dst) - 1
	}
	dst[t] = vTop
}

func uniform(rng *rand.Rand, iv [2]float64) float64 {
	return iv[0] + (iv[1]-iv[0])*rng.Float64()
}

// Step runs one iteration (see Net for the equations) and returns the logit
// o = Wo·z' + bo.
func (n *Net) Step(recAny any, s, s2 []float64, l int, first, last bool) float64 {
	rec := recAny.(*record)
	J, R := n.J, n.R()
	rec.l, rec.first, rec.last = l, first, last
	copy(rec.z, s[:J])
	copy(rec.r, s[J:J+R])
	rec.nz = rec.nz[:0]
	for j, v := range rec.z {
		if v != 0 {
			rec.nz = append(rec.nz, j)
		}
	}
	// eq. (1): pre_i = b_i + Σ_{j,k,l} Ws[i,j,k,l] z_j r_k x_l
	n.contract(rec.pre, n.Ws, n.Bs, J, rec)
	for i, v := range rec.pre {
		rec.zn[i] = 0
		if v > 0 {
			rec.zn[i] = 1
		}
		sg := nn.Sigmoid(v)
		rec.dsig[i] = sg * (1 - sg)
	}
	rec.moved = first && l < n.L
	rec.soft.on = false
	switch {
	case rec.moved && n.soft:
		n.softAct(rec, s[J+2*R:], s2[J+2*R:])
	case rec.moved:
		n.act(rec)
	case first: // the end marker: the stack does not move
		copy(rec.rn, rec.r)
	default:
		copy(rec.rn, s[J+R:J+2*R])
	}
	if !rec.soft.on {
		copy(s2[J+2*R:], s[J+2*R:])
	}
	copy(s2[:J], rec.zn)
	if last {
		copy(s2[J:J+R], rec.rn)
	} else {
		copy(s2[J:J+R], rec.r)
	}
	copy(s2[J+R:J+2*R], rec.rn)
	o := n.Bo[0]
	for i, v := range rec.zn {
		o += n.Wo[i] * v
	}
	return o
}

// act computes the action neurons (eq. 2), moves the stack, and records the
// soft-stack derivative g.
func (n *Net) act(rec *record) {
	n.contract(rec.act, n.Wa, n.Ba, n.A, rec)
	op := DecodeAction(rec.act)
	rec.cstar = 0
	best := -1.0
	for c, v := range rec.act {
		if (op == grammar.Noop || Ternary(v) != 0) && abs(v) > best {
			rec.cstar, best = c, abs(v)
		}
	}
	v := rec.act[rec.cstar]
	sg := nn.Sigmoid(v)
	rec.fprim = 2 * sg * (1 - sg)
	rec.noop = op == grammar.Noop
	top := n.stack.Top()
	below := -1
	if syms := n.stack.Symbols(); len(syms) >= 2 {
		below = syms[len(syms)-2]
	}
	n.stack.Apply(op, rec.l)
	// One draw of read values serves the read after the action taken and the
	// reads a push or a pop would have given.
	vTop, vPop := n.drawReads(rec.base)
	if op == grammar.Push || (op == grammar.Noop && v >= 0) {
		fillRead(rec.g, rec.base, rec.l, -1, vTop, vPop) // e(x)
		for k := range rec.g {
			rec.g[k] -= rec.r[k]
		}
	} else {
		fillRead(rec.g, rec.base, below, top, vTop, vPop) // r_below
		for k := range rec.g {
			rec.g[k] = rec.r[k] - rec.g[k]
		}
	}
	fillRead(rec.rn, rec.base, n.stack.Top(), n.stack.Popped(), vTop, vPop)
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// rowBase returns the offset of the weights from state neuron j to output
// neuron 0 of a tensor with n outputs at input l, and the row stride.
func (n *Net) rowBase(j, nout, l int) (base, stride int) {
	if n.Order == Third {
		return (l*n.J + j) * nout * n.R(), n.R()
	}
	return j * nout * n.V(), n.V()
}

// rowDot returns Σ_k W[row, k]·r_k (+ the input weight W[row, R+l] for
// second order): the contraction of one row with the read vector and input.
func (n *Net) rowDot(W []float64, off int, r []float64, l int) float64 {
	s := 0.0
	for k, v := range r {
		s += W[off+k] * v
	}
	if n.Order == Second {
		s += W[off+n.R()+l]
	}
	return s
}

// contract sets out[i] = b[i] + Σ_j z_j·rowDot(W[i, j]), summing over the
// nonzero state neurons only; for each, it reads one contiguous block.
func (n *Net) contract(out, W, b []float64, nout int, rec *record) {
	copy(out, b)
	R, l, r := n.R(), rec.l, rec.r
	second := n.Order == Second
	for _, j := range rec.nz {
		base, stride := n.rowBase(j, nout, l)
		zj := rec.z[j]
		for i := range out {
			row := W[base+i*stride : base+i*stride+R]
			dot := 0.0
			for k, w := range row {
				dot += w * r[k]
			}
			if second {
				dot += W[base+i*stride+R+l]
			}
			out[i] += zj * dot
		}
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
		ds[j] += dpre * n.rowDot(W, off, rec.r, l)
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

// grads returns the views of grad that match Ws, Bs, Wa, Ba, Wo, Bo.
func (n *Net) grads(grad []float64) (gWs, gBs, gWa, gBa, gWo, gBo []float64) {
	p := grad
	take := func(v []float64) []float64 {
		g := p[:len(v):len(v)]
		p = p[len(v):]
		return g
	}
	return take(n.Ws), take(n.Bs), take(n.Wa), take(n.Ba), take(n.Wo), take(n.Bo)
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
			s += ds[j] * n.rowDot(W, off, rec.r, l)
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

// NoiseMatrices lists Ws as J·J matrices (to-neuron i, from-neuron j) and Wa
// as A·J matrices, each of its R×X (third order) or V (second order) weights,
// for the adaptive noise regularizer.
func (n *Net) NoiseMatrices() [][][]int {
	return [][][]int{n.matrices(TWs, n.J, 0), n.matrices(TWa, n.A, len(n.Ws)+len(n.Bs))}
}

func (n *Net) matrices(t Tensor, out, offset int) [][]int {
	var mats [][]int
	for i := 0; i < out; i++ {
		for j := 0; j < n.J; j++ {
			var idx []int
			for k := 0; k < n.ctxRow(); k++ {
				if n.Order == Second {
					idx = append(idx, offset+n.Index2(out, i, j, k))
					continue
				}
				for l := 0; l < n.X(); l++ {
					idx = append(idx, offset+n.Index3(out, i, j, k, l))
				}
			}
			mats = append(mats, idx)
		}
	}
	return mats
}
