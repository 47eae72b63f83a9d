package nspda

import (
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/nn"
)

var _ nn.Actor = (*Net)(nil)

// ActionLoss is the action supervision of docs/design.md section 8. At an
// iteration that moves the stack, each action neuron c, with value
// f̂(v_c) = 2σ(v_c) − 1, is pulled towards the target τ of the operation
// (+1 push, −1 pop, 0 no-op):
//
//	L = weight · ½ Σ_c (f̂(v_c) − τ)²,
//
// a target at which DecodeAction returns op. Its gradient reaches the action
// weights and, through eq. (2), the state and read before the iteration.
func (n *Net) ActionLoss(recAny any, op int, weight float64, ds, grad []float64) float64 {
	rec := recAny.(*record)
	if !rec.moved {
		return 0
	}
	tau := actionTarget(grammar.Op(op))
	loss := 0.0
	var gWa, gBa []float64
	if ds != nil {
		_, _, gWa, gBa, _, _ = n.grads(grad)
	}
	for c, v := range rec.act {
		l, dv := actionTerm(v, tau, weight)
		loss += l
		if ds == nil {
			continue
		}
		gBa[c] += dv
		n.backRow(n.Wa, gWa, n.A, c, dv, rec, ds)
	}
	return weight * loss
}
