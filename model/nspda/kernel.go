package nspda

import (
	"math/rand/v2"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/stack"
)

// The one NSPDA kernel: the contraction of eqs. (1) and (2), the decision of
// the action neurons, and the read after an action. Runner (evaluation),
// Net (training, one string) and Batch (training, lock-step; its
// contractions run on the batched kernels of kernels_*.go) share it.

// inputOrder says where, at second order, a row's dot product adds the
// input weight W[i,j,R+l]: after the read terms (Net's order) or before
// them (Runner's). The two round differently, and stored results of each
// path depend on its own; third order has no input term.
type inputOrder bool

const (
	inputLast  inputOrder = false
	inputFirst inputOrder = true
)

// rowBase returns the offset of the weights from state neuron j to output
// neuron 0 of a tensor with nout outputs at input l, and the row stride.
func (s Shape) rowBase(j, nout, l int) (base, stride int) {
	if s.Order == Third {
		return (l*s.J + j) * nout * s.R(), s.R()
	}
	return j * nout * s.V(), s.V()
}

// rowDot returns Σ_k W[off+k]·r_k, summed in increasing k, plus, at second
// order, the input weight W[off+R+l] (where in the sum: in): the
// contraction of one row with the read vector and the one-hot input.
func (s Shape) rowDot(W []float64, off int, r []float64, l int, in inputOrder) float64 {
	second := s.Order == Second
	dot := 0.0
	if second && in == inputFirst {
		dot = W[off+len(r)+l]
	}
	row := W[off : off+len(r)]
	for k, w := range row {
		dot += w * r[k]
	}
	if second && in == inputLast {
		dot += W[off+len(r)+l]
	}
	return dot
}

// contract sets out[i] = b[i] + Σ_j z_j·rowDot(W[i, j]), eq. (1) with
// W = Ws, b = Bs, nout = J and eq. (2) with W = Wa, b = Ba, nout = A:
//
//	third order:  out_i = b_i + Σ_j z_j Σ_k W[i,j,k,l] r_k
//	second order: out_i = b_i + Σ_j z_j (Σ_k W[i,j,k] r_k + W[i,j,R+l])
//
// using that x is one-hot (only input l) and summing over the state neurons
// in active only (those with z_j ≠ 0, in increasing j); for each it reads
// one contiguous block. With binary states z_j = 1 and the product is exact.
func (s Shape) contract(out, W, b []float64, nout, l int, active []int, z, r []float64, in inputOrder) {
	copy(out, b)
	for _, j := range active {
		base, stride := s.rowBase(j, nout, l)
		zj := z[j]
		for i := range out {
			out[i] += zj * s.rowDot(W, base+i*stride, r, l, in)
		}
	}
}

// decide decodes the action neurons' pre-activations act into the
// operation taken (DecodeAction) and its decisive neuron c*: the one of
// largest |v| among those whose ternary value is not 0, or among all of
// them for a no-op (ties to the lowest index). fprim is f̂'(v*) = 2σ'(v*),
// with f̂(v) = 2σ(v)−1.
func decide(act []float64) (op grammar.Op, cstar int, fprim float64) {
	op, cstar = decideOp(act)
	sg := nn.Sigmoid(act[cstar])
	return op, cstar, 2 * sg * (1 - sg)
}

// decideOp is decide without f̂'(v*).
func decideOp(act []float64) (op grammar.Op, cstar int) {
	op = DecodeAction(act)
	best := -1.0
	for c, v := range act {
		if (op == grammar.Noop || Ternary(v) != 0) && abs(v) > best {
			cstar, best = c, abs(v)
		}
	}
	return op, cstar
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// move applies op (decided by the action neuron of pre-activation v) with
// symbol l to the stack st, draws this step's read values from rng into
// base, and writes the read after the action into rn and ∂r'/∂f̂ at the
// action taken into g, given the read r before it (see Net): e(x) − r on the
// push side, r − r_below on the pop side, or with twoSided both sides'
// sum, e(x) − r_below, whatever the side. One draw serves the read after
// the action taken and the reads a push or a pop would have given.
func move(st *stack.Digital, op grammar.Op, v float64, l int, rng *rand.Rand, r, base, g, rn []float64, twoSided bool) {
	top := st.Top()
	below := -1
	if syms := st.Symbols(); len(syms) >= 2 {
		below = syms[len(syms)-2]
	}
	st.Apply(op, l)
	vTop, vPop := drawReads(rng, base)
	switch {
	case twoSided:
		fillRead(rn, base, below, top, vTop, vPop) // r_below (rn is scratch until the end)
		fillRead(g, base, l, -1, vTop, vPop)       // e(x)
		for k := range g {
			g[k] -= rn[k]
		}
	case op == grammar.Push || (op == grammar.Noop && v >= 0):
		fillRead(g, base, l, -1, vTop, vPop) // e(x)
		for k := range g {
			g[k] -= r[k]
		}
	default:
		fillRead(g, base, below, top, vTop, vPop) // r_below
		for k := range g {
			g[k] = r[k] - g[k]
		}
	}
	fillRead(rn, base, st.Top(), st.Popped(), vTop, vPop)
}

// actionTarget is the target τ of an operation for the action loss: +1
// push, −1 pop, 0 no-op.
func actionTarget(op grammar.Op) float64 {
	switch op {
	case grammar.Push:
		return 1
	case grammar.Pop:
		return -1
	}
	return 0
}

// actionTerm returns one action neuron's term of the action loss,
// ½(f̂(v) − τ)², and weight times its derivative by v.
func actionTerm(v, tau, weight float64) (loss, dv float64) {
	sg := nn.Sigmoid(v)
	e := 2*sg - 1 - tau
	return 0.5 * e * e, weight * e * 2 * sg * (1 - sg)
}

// drawReads draws one step's read values: base[k] is what neuron k reads if
// it is neither on top nor just popped, and top and popped are the values of
// those two. Evaluation mode (a nil rng) uses the intervals' midpoints.
func drawReads(rng *rand.Rand, base []float64) (top, popped float64) {
	if rng == nil {
		for k := range base {
			base[k] = stack.EvalReads.Other
		}
		return stack.EvalReads.Top, stack.EvalReads.Popped
	}
	for k := range base {
		base[k] = uniform(rng, stack.OtherRange)
	}
	return uniform(rng, stack.TopRange), uniform(rng, stack.PoppedRange)
}

// startRead draws the read of the empty stack into r: ⊥ on top, nothing
// popped.
func startRead(rng *rand.Rand, r []float64) {
	vTop, vPop := drawReads(rng, r)
	fillRead(r, r, -1, -1, vTop, vPop)
}

// fillRead writes into dst the read of a stack whose top symbol is t and
// whose last action popped p, every other neuron reading its value in base
// (stack.Mark).
func fillRead(dst, base []float64, t, p int, vTop, vPop float64) {
	copy(dst, base)
	stack.Mark(dst, t, p, vTop, vPop)
}

func uniform(rng *rand.Rand, iv [2]float64) float64 {
	return iv[0] + (iv[1]-iv[0])*rng.Float64()
}
