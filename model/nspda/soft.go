package nspda

import (
	"math"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/nn"
)

// DefaultMaxLen is the longest string a new Net's superposition stack is
// sized for until Reserve is called (as the stack RNN's memories).
const DefaultMaxLen = 60

// The superposition stack of Net.SoftStack (docs/design.md section 8b).
//
// The stack is D = Reserved()+2 cells S[0..D−1], cell 0 on top, each a
// vector over the L symbols (an empty cell is 0). At a symbol's action
// iteration (input x, action pre-activations v from eq. 2), the options
// "push by neuron c", "pop by neuron c" and "no-op" get the logits
//
//	λ(c, push) = β·v_c + log σ(β²(v_c − θ₊))
//	λ(c, pop)  = −β·v_c + log σ(β²(θ₋ − v_c))
//	λ(noop)    = 0
//
// (θ₊ = PushThreshold, θ₋ = PopThreshold), w = softmax(λ), and π_op sums w
// over the options of op. As β → ∞ the gates σ(β²·) switch off a neuron that
// does not fire faster than the β·|v_c| of the others grow, and among firing
// neurons the largest |v_c| wins over the others and over the no-op (whose
// logit 0 lies below every firing |v_c|): π tends to the one-hot of
// DecodeAction(v). The two differ only on ties: at v_c exactly on a
// threshold (DecodeAction: not firing; π: a gate of ½, so firing), and when
// a push and a pop neuron have the same |v| (DecodeAction: the lower index;
// π: half each). The stack moves to
//
//	S' = π_push·push(S, e(x)) + π_pop·pop(S) + π_noop·S
//	push(S)[0] = e(x), push(S)[i] = S[i−1]   (the bottom cell falls off)
//	pop(S)[i] = S[i+1],  pop(S)[D−1] = 0
//
// with the popped symbol P = π_pop·S[0] and the new top T = S'[0]. The read
// after the action is the paper's, made soft: with this step's drawn values
// (α2 = vTop, α3 = vPop, α1 = b_k),
//
//	r'_k = T_k·vTop + (1 − T_k)·(P_k·vPop + (1 − P_k)·b_k)   (k < L)
//	r'_⊥ = E·vTop + (1 − E)·b_⊥,   E = 1 − Σ_k T_k   (the empty mass)
//
// which for one-hot T and P is exactly the digital read (the top's neuron
// α2, a popped one α3 unless it is also on top, ⊥ α2 when empty). The cells
// are part of the recurrent state, s = [z; r; p; S], and every derivative of
// this block is exact (the state neurons stay straight-through).

// softRecord is the part of an iteration's record the soft stack needs.
type softRecord struct {
	on     bool       // the iteration moved the superposition stack
	cells  []float64  // S before the action, D×L row-major
	top    []float64  // T = S'[0]
	popped []float64  // P = π_pop·S[0]
	w      []float64  // option weights: push by c at 2c, pop by c at 2c+1, no-op at 2A
	dlam   []float64  // ∂λ/∂v_c of the push (2c) and pop (2c+1) options; scratch in StepVJP
	pi     [3]float64 // π of the move (one-hot with SoftStraight)
	piSoft [3]float64 // π of the soft policy, whose Jacobian the derivatives take
	vTop   float64
	vPop   float64
	dv     []float64 // scratch: ∂/∂v of the A action neurons
	dT, dP []float64 // scratch: ∂/∂T and ∂/∂P (L each)
}

// Reserve sizes the superposition stack for strings of at most maxLen
// symbols: D = maxLen+2 cells. It changes StateSize only with SoftStack;
// records made before grow at their next Step (nn.Reserver).
func (n *Net) Reserve(maxLen int) { n.maxLen = max(maxLen, 0) }

// Reserved is the maxLen of the last Reserve (clamped at 0), DefaultMaxLen
// until then.
func (n *Net) Reserved() int { return n.maxLen }

// SetSharpness sets β, the sharpness of the superposition stack's actions
// (the trainer anneals it each epoch; values ≤ 0 mean 1).
func (n *Net) SetSharpness(beta float64) { n.Beta = beta }

// SetSoft(false) makes a SoftStack net train on the digital stack, its
// cells staying 0 (the state keeps its size, so heads that read it keep
// theirs); SetSoft(true) returns to the superposition stack.
func (n *Net) SetSoft(on bool) { n.digital = !on }

var _ nn.Reserver = (*Net)(nil)

// depth is the number of cells of the superposition stack.
func (n *Net) depth() int { return n.maxLen + 2 }

// cellsSize is the length of the stack's part of the state: D·L with
// SoftStack, else 0.
func (n *Net) cellsSize() int {
	if !n.SoftStack {
		return 0
	}
	return n.depth() * n.L
}

func (n *Net) beta() float64 {
	if n.Beta <= 0 {
		return 1
	}
	return n.Beta
}

// growSoft sizes rec's soft-stack buffers for the current depth.
func (n *Net) growSoft(sr *softRecord) {
	L, A, DL := n.L, n.A, n.cellsSize()
	if len(sr.cells) != DL {
		sr.cells = make([]float64, DL)
	}
	if len(sr.top) != L {
		sr.top, sr.popped, sr.dT, sr.dP = make([]float64, L), make([]float64, L), make([]float64, L), make([]float64, L)
	}
	if len(sr.w) != 2*A+1 {
		sr.w, sr.dlam, sr.dv = make([]float64, 2*A+1), make([]float64, 2*A), make([]float64, A)
	}
}

// logSigmoid is log σ(x), computed stably.
func logSigmoid(x float64) float64 {
	if x >= 0 {
		return -math.Log1p(math.Exp(-x))
	}
	return x - math.Log1p(math.Exp(x))
}

// softPolicy sets the option weights w, π and ∂λ/∂v from the action
// pre-activations act.
func (n *Net) softPolicy(sr *softRecord, act []float64) {
	b := n.beta()
	b2 := b * b
	A := len(act)
	m := 0.0 // the no-op's logit
	for c, v := range act {
		lp := b*v + logSigmoid(b2*(v-PushThreshold))
		lq := -b*v + logSigmoid(b2*(PopThreshold-v))
		sr.w[2*c], sr.w[2*c+1] = lp, lq
		m = math.Max(m, math.Max(lp, lq))
		sr.dlam[2*c] = b + b2*nn.Sigmoid(-b2*(v-PushThreshold))
		sr.dlam[2*c+1] = -b - b2*nn.Sigmoid(b2*(v-PopThreshold))
	}
	sr.w[2*A] = 0
	z := 0.0
	for o, l := range sr.w {
		sr.w[o] = math.Exp(l - m)
		z += sr.w[o]
	}
	sr.pi = [3]float64{}
	for o := range sr.w {
		sr.w[o] /= z
		sr.pi[optionOp(o, A)] += sr.w[o]
	}
	sr.piSoft = sr.pi
	if n.SoftStraight {
		sr.pi = [3]float64{}
		sr.pi[DecodeAction(act)] = 1
	}
}

// optionOp is the operation of option o among 2A+1.
func optionOp(o, A int) grammar.Op {
	switch {
	case o == 2*A:
		return grammar.Noop
	case o%2 == 0:
		return grammar.Push
	}
	return grammar.Pop
}

// softAct is the action iteration of the superposition stack: it computes
// the action neurons and π, moves the cells from S (in s) to S' (in s2), and
// writes the read after the action into rec.rn.
func (n *Net) softAct(rec *record, S, S2 []float64) {
	sr := &rec.soft
	n.growSoft(sr)
	sr.on = true
	n.contract(rec.act, n.Wa, n.Ba, n.A, rec)
	n.softPolicy(sr, rec.act)
	copy(sr.cells, S)
	L, D := n.L, n.depth()
	push, pop, noop := sr.pi[grammar.Push], sr.pi[grammar.Pop], sr.pi[grammar.Noop]
	// Below the cells that hold something (all ≥ 0), a new cell mixes three
	// zeros with weights π ≥ 0: exactly +0. Only the rows above are summed.
	hi := D
	if nz := nn.NonzeroLen(S[:D*L]); nz < D*L {
		hi = min(D, (nz+L-1)/L+1)
		clear(S2[hi*L : D*L])
	}
	for i := 0; i < hi; i++ {
		row := S2[i*L : (i+1)*L]
		for k := range row {
			v := noop * S[i*L+k]
			if i > 0 {
				v += push * S[(i-1)*L+k]
			}
			if i+1 < D {
				v += pop * S[(i+1)*L+k]
			}
			row[k] = v
		}
	}
	S2[rec.l] += push // e(x) in the top cell
	for k := range sr.popped {
		sr.popped[k] = pop * S[k]
	}
	copy(sr.top, S2[:L])
	sr.vTop, sr.vPop = drawReads(n.rng, rec.base)
	softRead(rec.rn, rec.base, sr.top, sr.popped, sr.vTop, sr.vPop)
}

// softRead writes the read of a soft top T and popped P (see Net's doc).
func softRead(dst, base, T, P []float64, vTop, vPop float64) {
	L := len(T)
	mass := 0.0
	for k, t := range T {
		dst[k] = t*vTop + (1-t)*(P[k]*vPop+(1-P[k])*base[k])
		mass += t
	}
	e := 1 - mass
	dst[L] = e*vTop + (1-e)*base[L]
}

// softVJP adds the transposed Jacobian of the soft action iteration: dpn is
// the gradient of the read after the action, dS2 that of the cells after it;
// it adds into dr, dz (through the action neurons), dS and grad.
func (n *Net) softVJP(rec *record, dpn, dS2, dS []float64, ds []float64, gWa, gBa []float64) {
	sr := &rec.soft
	L, D, A := n.L, n.depth(), n.A
	b := rec.base
	// Through the read: dT (added to the top cell's gradient) and dP.
	for k := range sr.dT {
		m := sr.popped[k]*sr.vPop + (1-sr.popped[k])*b[k]
		sr.dT[k] = dS2[k] + dpn[k]*(sr.vTop-m) - dpn[L]*(sr.vTop-b[L])
		sr.dP[k] = dpn[k] * (1 - sr.top[k]) * (sr.vPop - b[k])
	}
	// dS'[i] is dS2[i] except dS'[0] = dT.
	dcell := func(i, k int) float64 {
		if i == 0 {
			return sr.dT[k]
		}
		return dS2[i*L+k]
	}
	push, pop, noop := sr.pi[grammar.Push], sr.pi[grammar.Pop], sr.pi[grammar.Noop]
	S := sr.cells
	var dPush, dPop, dNoop float64
	for i := 0; i < D; i++ {
		for k := 0; k < L; k++ {
			d := dcell(i, k)
			v := noop * d
			dNoop += d * S[i*L+k]
			if i+1 < D {
				v += push * dcell(i+1, k)
			}
			if i > 0 {
				v += pop * dcell(i-1, k)
				dPush += d * S[(i-1)*L+k]
			}
			if i+1 < D {
				dPop += d * S[(i+1)*L+k]
			}
			dS[i*L+k] += v
		}
	}
	dPush += sr.dT[rec.l]
	for k, d := range sr.dP {
		dS[k] += pop * d
		dPop += d * S[k]
	}
	if n.NoReadGrad {
		return
	}
	n.softPolicyVJP(sr, [3]float64{grammar.Noop: dNoop, grammar.Push: dPush, grammar.Pop: dPop})
	for c, dv := range sr.dv[:A] {
		if dv != 0 {
			gBa[c] += dv
			n.backRow(n.Wa, gWa, n.A, c, dv, rec, ds)
		}
	}
}

// softPolicyVJP sets sr.dv, the gradient of the action pre-activations, from
// the gradient dpi of π.
func (n *Net) softPolicyVJP(sr *softRecord, dpi [3]float64) {
	A := n.A
	mean := sr.piSoft[0]*dpi[0] + sr.piSoft[1]*dpi[1] + sr.piSoft[2]*dpi[2]
	for c := 0; c < A; c++ {
		dPushOpt := sr.w[2*c] * (dpi[grammar.Push] - mean)
		dPopOpt := sr.w[2*c+1] * (dpi[grammar.Pop] - mean)
		sr.dv[c] = dPushOpt*sr.dlam[2*c] + dPopOpt*sr.dlam[2*c+1]
	}
}

// softJVP sets the tangent of the read after the soft action iteration (pn)
// and of the cells after it (dS2) from the tangent ds of the state before.
func (n *Net) softJVP(rec *record, ds, dS, pn, dS2 []float64) {
	sr := &rec.soft
	L, D, A := n.L, n.depth(), n.A
	var dpi [3]float64
	if !n.NoReadGrad {
		mean := 0.0
		for c := 0; c < A; c++ {
			dv := n.rowJVP(n.Wa, A, c, rec, ds)
			sr.dv[c] = dv
			mean += sr.w[2*c]*sr.dlam[2*c]*dv + sr.w[2*c+1]*sr.dlam[2*c+1]*dv
		}
		for c, dv := range sr.dv[:A] {
			dpi[grammar.Push] += sr.w[2*c] * (sr.dlam[2*c]*dv - mean)
			dpi[grammar.Pop] += sr.w[2*c+1] * (sr.dlam[2*c+1]*dv - mean)
		}
		dpi[grammar.Noop] = sr.w[2*A] * (0 - mean)
	}
	push, pop, noop := sr.pi[grammar.Push], sr.pi[grammar.Pop], sr.pi[grammar.Noop]
	S := sr.cells
	for i := 0; i < D; i++ {
		for k := 0; k < L; k++ {
			v := noop*dS[i*L+k] + dpi[grammar.Noop]*S[i*L+k]
			if i > 0 {
				v += push*dS[(i-1)*L+k] + dpi[grammar.Push]*S[(i-1)*L+k]
			}
			if i+1 < D {
				v += pop*dS[(i+1)*L+k] + dpi[grammar.Pop]*S[(i+1)*L+k]
			}
			dS2[i*L+k] = v
		}
	}
	dS2[rec.l] += dpi[grammar.Push]
	b := rec.base
	sum := 0.0
	for k := 0; k < L; k++ {
		dT := dS2[k]
		dP := pop*dS[k] + dpi[grammar.Pop]*S[k]
		m := sr.popped[k]*sr.vPop + (1-sr.popped[k])*b[k]
		pn[k] = dT*(sr.vTop-m) + dP*(1-sr.top[k])*(sr.vPop-b[k])
		sum += dT
	}
	pn[L] = -sum * (sr.vTop - b[L])
}
