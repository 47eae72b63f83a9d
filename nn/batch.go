package nn

import "math/rand/v2"

// Batcher is a net that runs the strings of a minibatch in lock-step for
// BPTT (the NSPDA on its digital stack); train.BatchBPTT asks for it.
type Batcher interface {
	// CheckBatch reports why the net cannot run in lock-step in its
	// current setting (nil: it can).
	CheckBatch() error
	// NewBatch returns a lock-step runner over the net's live parameters,
	// or CheckBatch's error.
	NewBatch() (Batch, error)
}

// Batch runs a minibatch of strings through one net in lock-step.
type Batch interface {
	// Forward runs the strings ins[b] (input indices, the end marker
	// included) with K = refine iterations per input, string b drawing its
	// reads from rngs[b] (nil: evaluation mode).
	Forward(ins [][]int, refine int, rngs []*rand.Rand)
	// Backward runs the reverse sweep of the last Forward with the loss
	// terms of ls, ADDS the gradient of the summed loss of all strings into
	// grad (indexed like Params), and returns that loss.
	Backward(ls BatchLoss, grad []float64) float64
}

// BatchLoss holds the loss terms of a backward pass (Batch.Backward).
type BatchLoss struct {
	// Target returns the label y of the output term of string b at input t,
	// the binary cross-entropy BCE(o, y) of the logit o after each of the
	// input's iterations; on false: no output term there.
	Target func(b, t int) (y float64, on bool)
	// State, when not nil, is called with string b's state s after the
	// last iteration of input t; it returns the loss of its terms there and
	// adds their gradient into ds.
	State func(b, t int, s, ds []float64) float64
	// Action, when not nil, returns the target operation (as grammar.Op)
	// and the weight of the action loss (Actor) at input t of string b;
	// ok false: no term there.
	Action func(b, t int) (op int, weight float64, ok bool)
}
