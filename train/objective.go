package train

import (
	"math"
	"math/rand/v2"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/nn"
)

// Objective is what a string's loss holds besides the output terms of eq.
// (6): auxiliary heads that read the recurrent state after each symbol, and a
// loss on the action neurons (docs/design.md section 8). A nil Objective is
// the paper's loss. An Objective owns the heads' parameters and gradients;
// it is not safe for concurrent use.
//
// With the state s after the last iteration of symbol t (t < n), a head
// computes logits u = W·s + b over the C = L+1 next inputs (the alphabet and
// the end marker):
//
//	Next: Σ_c BCE(u_c, N_{t,c}),  N_{t,c} = 1 if c may follow the prefix
//	LM:   −log softmax(u)_{x_{t+1}}  on members only, x_{n} = the end marker
//
// and the action neurons of symbol t (nn.Actor) are trained towards the
// PDA's operation on it. Each term has its weight. NeutralWeight weighs a
// prior that needs no automaton, about one symbol: a start of a run (the
// trainer calls SetNeutral; Settings.NeutralSymbols) pulls the action
// neurons towards the no-op at every step of one input symbol, or of none,
// so that the long starts try, in turn, each symbol as one that leaves the
// stack alone. FinalNeutralWeight, when
// positive, replaces NeutralWeight on a run's final starts (SetFinal), its
// last resort, which lean harder on the prior.
type Objective struct {
	Next, LM                           *Head
	NextWeight, LMWeight, ActionWeight float64
	NeutralWeight, FinalNeutralWeight  float64
	neutral                            int  // the current start's neutral symbol plus one (0: none)
	final                              bool // the current start is a final one
}

// NeutralSymbol is start r's neutral symbol for an alphabet of L symbols
// (Objective.NeutralWeight): none (−1) on starts 0, L+1, 2(L+1), …, and
// symbol (r mod (L+1)) − 1 on the others.
func NeutralSymbol(r, L int) int {
	return r%(L+1) - 1
}

// SetNeutral sets the current start's neutral symbol (−1: none); it does
// nothing on a nil Objective.
func (o *Objective) SetNeutral(sym int) {
	if o != nil {
		o.neutral = sym + 1
	}
}

// SetFinal says whether the current start is a final one
// (FinalNeutralWeight); it does nothing on a nil Objective.
func (o *Objective) SetFinal(on bool) {
	if o != nil {
		o.final = on
	}
}

// neutralWeight is the current start's weight of the neutral prior.
func (o *Objective) neutralWeight() float64 {
	if o.final && o.FinalNeutralWeight > 0 {
		return o.FinalNeutralWeight
	}
	return o.NeutralWeight
}

// Head is a linear read-out of the recurrent state: C logits from S state
// values, weights W (C×S, row-major) then biases b in Params.
type Head struct {
	C, S   int
	Params []float64
	Grad   []float64
	u, du  []float64 // scratch: logits and their gradient
}

// NewHead returns a head of c outputs over a state of s values, its weights
// drawn from U(−scale, scale) and its biases 0.
func NewHead(c, s int, scale float64, rng *rand.Rand) *Head {
	h := &Head{C: c, S: s, Params: make([]float64, c*s+c), Grad: make([]float64, c*s+c), u: make([]float64, c), du: make([]float64, c)}
	h.Init(scale, rng)
	return h
}

// Init draws the head's weights from U(−scale, scale) and zeroes its biases.
func (h *Head) Init(scale float64, rng *rand.Rand) {
	for i := range h.Params[:h.C*h.S] {
		h.Params[i] = scale * (2*rng.Float64() - 1)
	}
	clear(h.Params[h.C*h.S:])
}

// logits sets h.u = W·s + b; s[n:] is zero, and the sums skip it. The
// state's trailing zeros are the superposition stack's cells below its
// deepest push, and all of them on a digital start (design.md, section 8b):
// a sum that starts at +0 is never −0, so adding w·0 = ±0 to it changes
// nothing, and skipping them gives the same logits bit for bit.
func (h *Head) logits(s []float64, n int) {
	W, b := h.Params[:h.C*h.S], h.Params[h.C*h.S:]
	for c := range h.u {
		h.u[c] = b[c] + nn.Dot(W[c*h.S:c*h.S+n], s[:n])
	}
}

// back adds the gradient du of the logits into ds and the head's Grad;
// s[n:] is zero, and the weight gradient skips it (as logits does).
func (h *Head) back(s, ds []float64, n int) {
	W := h.Params[:h.C*h.S]
	gW, gb := h.Grad[:h.C*h.S], h.Grad[h.C*h.S:]
	for c, d := range h.du {
		if d == 0 {
			continue
		}
		gb[c] += d
		row, grow := W[c*h.S:(c+1)*h.S], gW[c*h.S:c*h.S+n]
		for i, v := range s[:n] {
			grow[i] += d * v
		}
		for i, w := range row {
			ds[i] += d * w
		}
	}
}

// Heads lists the objective's heads that are on (for the optimizer and
// checkpoints).
func (o *Objective) Heads() []*Head {
	var hs []*Head
	if o == nil {
		return nil
	}
	for _, h := range []*Head{o.Next, o.LM} {
		if h != nil {
			hs = append(hs, h)
		}
	}
	return hs
}

// stateLoss is the heads' loss on the state s after the last iteration of
// input t of ex. With ds non-nil it adds the loss's gradient into ds and the
// heads' Grad.
func (o *Objective) stateLoss(ex Example, t int, s, ds []float64) float64 {
	if o == nil || t >= len(ex.Syms) {
		return 0
	}
	loss := 0.0
	if h := o.Next; h != nil && o.NextWeight > 0 && ex.Next != nil {
		n := nn.NonzeroLen(s)
		h.logits(s, n)
		row := ex.Next[t*h.C : (t+1)*h.C]
		for c, u := range h.u {
			y := 0.0
			if row[c] {
				y = 1
			}
			loss += o.NextWeight * nn.BCE(u, y)
			h.du[c] = o.NextWeight * (nn.Sigmoid(u) - y)
		}
		if ds != nil {
			h.back(s, ds, n)
		}
	}
	if h := o.LM; h != nil && o.LMWeight > 0 && ex.Label == 1 {
		n := nn.NonzeroLen(s)
		h.logits(s, n)
		next := h.C - 1 // the end marker
		if t+1 < len(ex.Syms) {
			next = ex.Syms[t+1]
		}
		// −log softmax(u)_next = logsumexp(u) − u_next, stably.
		m := math.Inf(-1)
		for _, u := range h.u {
			m = math.Max(m, u)
		}
		z := 0.0
		for _, u := range h.u {
			z += math.Exp(u - m)
		}
		loss += o.LMWeight * (m + math.Log(z) - h.u[next])
		for c, u := range h.u {
			h.du[c] = o.LMWeight * math.Exp(u-m) / z
		}
		h.du[next] -= o.LMWeight
		if ds != nil {
			h.back(s, ds, n)
		}
	}
	return loss
}

// actionLoss is the action neurons' loss of the iteration in rec (iteration
// it of input t), which reads state s; with ds non-nil it adds its gradient
// with respect to s into ds and with respect to the net's parameters into
// grad.
func (o *Objective) actionLoss(net nn.Net, rec any, ex Example, t, it int, ds, grad []float64) float64 {
	op, w, on := o.actionTarget(ex, t, it)
	if !on {
		return 0
	}
	a, ok := net.(nn.Actor)
	if !ok {
		return 0
	}
	return a.ActionLoss(rec, op, w, ds, grad)
}

// actionAt reports whether iteration it of input t has an action-loss
// term.
func (o *Objective) actionAt(ex Example, t, it int) bool {
	_, _, on := o.actionTarget(ex, t, it)
	return on
}

// actionTarget is the action loss's target operation and weight at
// iteration it of input t, and whether it has one: on the first iteration
// of a symbol, the PDA's operation where ex has one (weight ActionWeight),
// else the no-op on the start's neutral symbol (weight NeutralWeight, or
// FinalNeutralWeight on a final start); the end marker moves no stack.
func (o *Objective) actionTarget(ex Example, t, it int) (op int, w float64, on bool) {
	switch {
	case o == nil || it != 0:
		return 0, 0, false
	case o.ActionWeight != 0 && t < len(ex.Ops) && ex.Ops[t] >= 0:
		return int(ex.Ops[t]), o.ActionWeight, true
	case o.NeutralWeight != 0 && t < len(ex.Syms) && ex.Syms[t] == o.neutral-1:
		return int(grammar.Noop), o.neutralWeight(), true
	}
	return 0, 0, false
}

// outTarget is the output's target at input t and whether input t has an
// output term: the label at every input (eq. 6) unless ex.Out says otherwise.
func (ex Example) outTarget(t int) (float64, bool) {
	if ex.Out == nil {
		return ex.Label, true
	}
	y := ex.Out[t]
	return y, !math.IsNaN(y)
}
