package nspda

import (
	"math"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/stack"
)

// Thresholds of the quantized activations (paper Sec. 3.1). A state neuron is
// on when sigmoid(v) > 0.5, i.e. v > 0. An action neuron is +1 (push) when
// 2·sigmoid(v)−1 > 0.13 and −1 (pop) when 2·sigmoid(v)−1 < −0.09; solving for
// v gives the pre-activation thresholds below.
var (
	PushThreshold = math.Log(1.13 / 0.87) // ≈ 0.2615
	PopThreshold  = math.Log(0.91 / 1.09) // ≈ −0.1805
)

// Ternary is the action activation f: +1, 0 or −1 from a pre-activation.
func Ternary(v float64) int {
	switch {
	case v > PushThreshold:
		return 1
	case v < PopThreshold:
		return -1
	}
	return 0
}

// DecodeAction turns the action neurons' pre-activations into one stack
// operation: among the components whose ternary value is not 0, the one with
// the largest |pre-activation| decides (+1 push, −1 pop); if all are 0, no-op.
// Ties go to the lowest index.
func DecodeAction(pre []float64) grammar.Op {
	op, best := grammar.Noop, 0.0
	for _, v := range pre {
		t := Ternary(v)
		if t == 0 || math.Abs(v) <= best {
			continue
		}
		best = math.Abs(v)
		op = grammar.Push
		if t < 0 {
			op = grammar.Pop
		}
	}
	return op
}

// Runner runs a model symbol by symbol with binary states and a digital
// stack. It allocates only when created, when the stack grows past its
// largest size so far, and when Classify meets an input and read it has not
// met before (its read tables, readtable.go). A Runner is not safe for
// concurrent use; make one per goroutine.
type Runner struct {
	m *Model

	// Refine is the number of state iterations per symbol (default
	// m.EvalRefine); the stack action comes from the state before the first.
	Refine int
	// Reads are the read neurons' values (default stack.EvalReads).
	Reads stack.Reads

	Stack  stack.Digital
	z      []float64 // binary state
	active []int     // indices j with z[j] = 1
	next   []int     // the next state's active, in Classify
	r      []float64 // read neurons
	pre    []float64 // state pre-activations
	act    []float64 // action pre-activations
	y      float64   // last prediction
	op     grammar.Op

	tables *readTables // Classify's contractions, computed as met
}

// NewRunner returns a Runner for m, reset to the start.
func (m *Model) NewRunner() *Runner {
	refine := m.EvalRefine
	if refine < 1 {
		refine = 1
	}
	r := &Runner{
		m:      m,
		Refine: refine,
		Reads:  stack.EvalReads,
		z:      make([]float64, m.J),
		active: make([]int, 0, m.J),
		next:   make([]int, 0, m.J),
		r:      make([]float64, m.R()),
		pre:    make([]float64, m.J),
		act:    make([]float64, m.A),
	}
	r.Reset()
	return r
}

// Reset puts the runner back at the start: state neuron 0 on, empty stack.
func (r *Runner) Reset() {
	for j := range r.z {
		r.z[j] = 0
	}
	r.z[0] = 1
	r.active = append(r.active[:0], 0)
	r.Stack.Reset()
	r.Stack.Read(r.r, r.Reads)
	r.y = r.output()
	r.op = grammar.Noop
}

// SetConfig puts the runner in an arbitrary configuration: the state
// neurons in active on (indices below J, increasing) and every other off, the
// stack holding syms (bottom first) with popped as the symbol the last action
// removed (-1 for none). The read neurons and the prediction are refreshed
// as after a step. Extraction uses it to evaluate the network at any
// configuration it has seen.
func (r *Runner) SetConfig(active, syms []int, popped int) {
	for j := range r.z {
		r.z[j] = 0
	}
	for _, j := range active {
		r.z[j] = 1
	}
	r.active = append(r.active[:0], active...)
	r.Stack.Set(syms, popped)
	r.Stack.Read(r.r, r.Reads)
	r.y = r.output()
	r.op = grammar.Noop
}

// Step feeds input neuron l (0..L-1 a symbol, L the end marker $): the
// action neurons are computed from the state before the symbol, the state is
// updated Refine times with the same read, the action is applied to the stack
// (never at $), the read neurons are refreshed, and the prediction is made
// from the new state. It returns the stack operation taken.
func (r *Runner) Step(l int) grammar.Op {
	m := r.m
	for it := 0; it < r.Refine; it++ {
		// eqs. (2) and (1), the shared kernel over the active state
		// neurons (their z_j are 1), the input weight first at second order.
		if it == 0 {
			m.contract(r.act, m.Wa, m.Ba, m.A, l, r.active, r.z, r.r, inputFirst)
		}
		m.contract(r.pre, m.Ws, m.Bs, m.J, l, r.active, r.z, r.r, inputFirst)
		r.active = threshold(r.active, r.z, r.pre)
	}
	r.op = DecodeAction(r.act)
	if l < m.L {
		r.Stack.Apply(r.op, l)
	}
	r.Stack.Read(r.r, r.Reads)
	r.y = r.output()
	return r.op
}

// threshold sets the binary state from the pre-activations pre: z_i = 1
// when pre_i > 0 (sigmoid(pre_i) > 0.5), else 0. It returns the indices
// that are on, increasing, in on's memory (capacity at least len(pre)),
// which may be the state's own list: it writes every index and keeps those
// that are on, without a branch on the data (the states of a string follow
// no pattern a branch predictor learns).
func threshold(on []int, z, pre []float64) []int {
	on = on[:len(pre)]
	z = z[:len(pre)]
	n := 0
	for i, v := range pre {
		b := 0
		if v > 0 {
			b = 1
		}
		on[n] = i
		n += b
		z[i] = float64(b)
	}
	return on[:n]
}

func (r *Runner) output() float64 {
	s := r.m.Bo[0]
	for _, j := range r.active {
		s += r.m.Wo[j]
	}
	return nn.Sigmoid(s)
}

// Prediction is the network's latest output y in (0,1).
func (r *Runner) Prediction() float64 { return r.y }

// Active lists the state neurons that are on. The slice is the runner's own.
func (r *Runner) Active() []int { return r.active }

// Classify runs syms followed by the end marker from a fresh start and
// reports whether the network accepts (final prediction > 0.5). It
// computes with read tables (readtable.go): the states, actions and answer
// of Step, bit for bit, at a fraction of the cost. The tables hold the
// weights as they were when an input and read were first met: after
// changing the model's weights, call Forget (or make a new Runner).
func (r *Runner) Classify(syms []int) (accept bool, y float64) {
	if r.tables == nil || r.tables.reads != r.Reads {
		r.tables = newReadTables(r.m, r.Reads)
	}
	r.Reset()
	rd := r.tables.readIndex(-1, -1)
	for _, l := range syms {
		rd = r.stepTable(l, rd)
	}
	r.stepTable(r.m.L, rd)
	r.Stack.Read(r.r, r.Reads)
	r.y = r.output()
	return r.y > 0.5, r.y
}

// Forget drops the read tables, so that Classify sees the model's weights
// as they are now.
func (r *Runner) Forget() { r.tables = nil }

// stepTable is Step from read rd (readIndex) on the read tables, without
// refreshing the read neurons or the prediction; it returns the read after
// the step. At an input and read beyond the tables' budget it calls Step.
func (r *Runner) stepTable(l, rd int) int {
	m, t := r.m, r.tables
	b := t.block(l, rd)
	if b == nil {
		r.Stack.Read(r.r, r.Reads)
		r.Step(l)
		return t.readIndex(r.Stack.Top(), r.Stack.Popped())
	}
	for it := 0; it < r.Refine; it++ {
		if it == 0 {
			sumRows(r.act, m.Ba, b[m.J*m.J:], r.active)
		}
		r.next = sumState(r.next, r.z, r.pre, m.Bs, b[:m.J*m.J], r.active)
		r.active, r.next = r.next, r.active
	}
	r.op = DecodeAction(r.act)
	if l < m.L {
		r.Stack.Apply(r.op, l)
	}
	return t.readIndex(r.Stack.Top(), r.Stack.Popped())
}
