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
//     with this step's read values. With TwoSided, g = e(x) − r_below,
//     the two sides' sum, at every action: inside a run of one stack
//     symbol a pop leaves the read as it was (r_below = r), so the pop
//     side is 0 there, and a net that pushes sees no gradient towards the
//     pops that empty the stack on the shortest strings; the sum keeps
//     both (docs/design.md section 8).
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
	// TwoSided takes g = e(x) − r_below, the push side's and the pop
	// side's differences summed, whatever the action's side (see above);
	// SetTwoSided turns it on for a start (twoStart) where the option is
	// off.
	TwoSided bool
	twoStart bool
	// SoftStack trains through the superposition stack (see above).
	SoftStack bool
	// SoftStraight: with SoftStack, the superposition stack moves by the
	// digital operation (π one-hot) and its derivatives take ∂π/∂v from
	// the soft policy at β (soft.go).
	SoftStraight bool
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

// Config is the model's shape and evaluation settings, and its training
// options when they are on.
func (n *Net) Config() any {
	return struct {
		Order        int  `json:"order"`
		J            int  `json:"J"`
		A            int  `json:"A"`
		EvalRefine   int  `json:"eval_refine"`
		NoReadGrad   bool `json:"no_read_grad,omitempty"`
		TwoSided     bool `json:"two_sided,omitempty"`
		SoftStack    bool `json:"soft_stack,omitempty"`
		SoftStraight bool `json:"soft_straight,omitempty"`
	}{int(n.Order), n.J, n.A, n.EvalRefine, n.NoReadGrad, n.TwoSided, n.SoftStack, n.SoftStraight}
}

// SetTwoSided takes the read's two-sided derivative (TwoSided) from now
// on, or, with false, the one the TwoSided option gives: the trainer turns
// it on for the starts with a neutral symbol (train.TwoSider).
func (n *Net) SetTwoSided(on bool) { n.twoStart = on }

// twoSided reports whether the read's derivative is two-sided now.
func (n *Net) twoSided() bool { return n.TwoSided || n.twoStart }

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
	startRead(n.rng, r)
	copy(s[J+R:J+2*R], r)
	nn.Zero(s[J+2*R:])
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
	var op grammar.Op
	op, rec.cstar, rec.fprim = decide(rec.act)
	rec.noop = op == grammar.Noop
	move(&n.stack, op, rec.act[rec.cstar], rec.l, n.rng, rec.r, rec.base, rec.g, rec.rn, n.twoSided())
}

// contract sets out = eq. (1) or (2) (the shared kernel, Shape.contract)
// for the iteration of rec, over its nonzero state neurons.
func (n *Net) contract(out, W, b []float64, nout int, rec *record) {
	n.Shape.contract(out, W, b, nout, rec.l, rec.nz, rec.z, rec.r, inputLast)
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
