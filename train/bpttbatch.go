package train

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/nspda/nspda/nn"
)

// BatchBPTT is BPTT over a minibatch run in lock-step (nn.Batch): the
// strings advance together, grouped by input symbol, on kernels that are
// vectorized over the strings. Its gradient is the sum of the strings' BPTT
// gradients, each string drawing its reads from its own rng, up to the
// order of floating-point sums.
//
// It runs the nets that are nn.Batchers (NSPDAs of both orders on the
// digital stack), with refinement, NoReadGrad, the per-step output targets
// (Example.Out), the next-symbol-set and language-model heads and the
// action loss. It refuses the superposition stack (SoftStack), hints
// (Example.Hinted) and the dead-state hint (Example.DeadAt).
type BatchBPTT struct {
	bt  nn.Batch
	net nn.Net
	ins [][]int
	exs []Example
	obj *Objective
	// terms holds the loss terms' method values, made once (a method
	// value made per batch would allocate).
	terms nn.BatchLoss
}

// Name is "bptt-batch".
func (*BatchBPTT) Name() string { return "bptt-batch" }

// Supports reports why net or ex cannot run in the batch path (nil: they
// can).
func (e *BatchBPTT) Supports(net nn.Net, ex Example) error {
	n, ok := net.(nn.Batcher)
	if !ok {
		return fmt.Errorf("bptt-batch trains NSPDAs only, not %T", net)
	}
	if err := n.CheckBatch(); err != nil {
		return err
	}
	for _, h := range ex.Hinted {
		if h {
			return errors.New("bptt-batch does not run hinted inputs (one iteration on some inputs)")
		}
	}
	if ex.DeadAt > 0 {
		return errors.New("bptt-batch does not run the dead-state hint")
	}
	return nil
}

// GradientBatch ADDS the sum over exs of each string's loss gradient into
// grad and the heads' gradients into theirs, string b drawing its reads
// from rngs[b], and returns the summed loss.
func (e *BatchBPTT) GradientBatch(net nn.Net, obj *Objective, exs []Example, refine int, rngs []*rand.Rand, grad []float64) (float64, error) {
	for _, ex := range exs {
		if err := e.Supports(net, ex); err != nil {
			return 0, err
		}
	}
	if e.net != net {
		bt, err := net.(nn.Batcher).NewBatch()
		if err != nil {
			return 0, err
		}
		e.bt, e.net = bt, net
	}
	for len(e.ins) < len(exs) {
		e.ins = append(e.ins, nil)
	}
	e.ins = e.ins[:len(exs)]
	for b, ex := range exs {
		in := append(e.ins[b][:0], ex.Syms...)
		e.ins[b] = append(in, net.InputSize()-1)
	}
	e.bt.Forward(e.ins, refine, rngs)
	e.exs, e.obj = exs, obj
	if e.terms.Target == nil {
		e.terms = nn.BatchLoss{Target: e.target, State: e.state, Action: e.action}
	}
	ls := nn.BatchLoss{Target: e.terms.Target}
	if obj != nil && (obj.Next != nil || obj.LM != nil) { // Heads() would allocate
		ls.State = e.terms.State
	}
	if obj != nil && (obj.ActionWeight != 0 || obj.NeutralWeight != 0) {
		ls.Action = e.terms.Action
	}
	loss := e.bt.Backward(ls, grad)
	e.exs, e.obj = nil, nil
	return loss, nil
}

func (e *BatchBPTT) target(b, t int) (float64, bool) { return e.exs[b].outTarget(t) }

func (e *BatchBPTT) state(b, t int, s, ds []float64) float64 {
	return e.obj.stateLoss(e.exs[b], t, s, ds)
}

func (e *BatchBPTT) action(b, t int) (int, float64, bool) {
	return e.obj.actionTarget(e.exs[b], t, 0)
}
