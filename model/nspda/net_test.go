package nspda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/nn/nntest"
	"github.com/nspda/nspda/stack"
)

// randomSyms draws n symbols over an alphabet of L.
func randomSyms(rng *rand.Rand, L, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = rng.IntN(L)
	}
	return s
}

// busyModel returns a random model whose actions fire often, so that tests
// see pushes, pops and no-ops.
func busyModel(t testing.TB, order Order, L, J, A int, seed uint64) *Model {
	m := randomModel(t, order, L, J, A, seed)
	for i := range m.Wa {
		m.Wa[i] *= 0.2
	}
	for i := range m.Ba {
		m.Ba[i] *= 0.2
	}
	return m
}

// TestNetMatchesRunner: in evaluation mode the training pass classifies
// exactly as the fast runner does, with and without refinement.
func TestNetMatchesRunner(t *testing.T) {
	for order, seed := range orderSeeds(0, 29) {
		m := busyModel(t, order, 3, 5, 3, seed)
		rng := rand.New(rand.NewPCG(seed, 9))
		for _, refine := range []int{1, 3} {
			m.EvalRefine = refine
			run := m.NewRunner()
			cls := nn.NewClassifier(NewNet(m), refine)
			for i := 0; i < 20; i++ {
				syms := randomSyms(rng, 3, rng.IntN(30))
				a1, y1 := run.Classify(syms)
				a2, y2 := cls.Classify(syms)
				if a1 != a2 || y1 != y2 {
					t.Fatalf("order %d seed %d refine %d: runner (%v, %v), net (%v, %v)", order, seed, refine, a1, y1, a2, y2)
				}
			}
		}
	}
}

func TestNetAdjoint(t *testing.T) {
	for order, seed := range orderSeeds(1, 9) {
		m := busyModel(t, order, 3, 4, 3, seed)
		rng := rand.New(rand.NewPCG(seed, 1))
		for _, refine := range []int{1, 4} {
			nntest.CheckAdjoint(t, NewNet(m), nntest.Case{Syms: randomSyms(rng, 3, 12), Label: 1, Refine: refine, Seed: seed}, 1e-10)
		}
	}
}

// reads are one step's drawn read values: a neuron's value when its symbol
// is on top, when it was just popped, and otherwise (one per neuron).
type reads struct {
	base        []float64
	top, popped float64
}

// replayReads replays the Net's training-mode draws from its read stream: the
// R "other" values, then the top's, then the popped symbol's.
func replayReads(rng *rand.Rand, R int) reads {
	between := func(iv [2]float64) float64 { return iv[0] + (iv[1]-iv[0])*rng.Float64() }
	d := reads{base: make([]float64, R)}
	for k := range d.base {
		d.base[k] = between(stack.OtherRange)
	}
	d.top = between(stack.TopRange)
	d.popped = between(stack.PoppedRange)
	return d
}

// readOf is the read of a stack (bottom first) whose last action popped the
// symbol popped (−1: none): the top's neuron (⊥'s, the last, when empty)
// reads d.top, the popped one d.popped unless it is also on top.
func readOf(syms []int, popped int, d reads) []float64 {
	r := append([]float64(nil), d.base...)
	if popped >= 0 {
		r[popped] = d.popped
	}
	top := len(r) - 1
	if len(syms) > 0 {
		top = syms[len(syms)-1]
	}
	r[top] = d.top
	return r
}

// refStep is one iteration of the reference pass as the test derives it
// from the stack's contents and the drawn read values, independently of
// the Net's own record (rec, used only for the pre-activations at the
// reference point).
type refStep struct {
	rec         *record
	l           int
	first, last bool
	moved, noop bool
	r           []float64 // read before the iteration
	cstar       int       // decisive action neuron
	g           []float64 // ∂r'/∂f̂(v*): e(x) − r (push side) or r − r_below (pop side); TwoSided: e(x) − r_below
	rn          []float64 // pending read after the iteration
}

// decisive returns the action neuron whose f̂ the read's derivative goes
// through: among those whose ternary value is not 0 (all of them, for a
// no-op), the largest |pre-activation|, the lowest index on ties.
func decisive(act []float64, op grammar.Op) int {
	c, best := 0, -1.0
	for i, v := range act {
		if (op == grammar.Noop || Ternary(v) != 0) && math.Abs(v) > best {
			c, best = i, math.Abs(v)
		}
	}
	return c
}

// referencePass runs the Net over c in training mode with the read stream
// of seed and derives every iteration's refStep: it keeps its own stack,
// replays the read draws, and checks that the Net's forward reads are the
// ones the stack and the draws give. It returns the initial state too.
func referencePass(t *testing.T, n *Net, c nntest.Case) ([]float64, []refStep) {
	t.Helper()
	J, R := n.J, n.R()
	stream := func() *rand.Rand { return rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15)) }
	twin := stream()
	s := make([]float64, n.StateSize())
	n.Start(s, stream())
	s0 := append([]float64(nil), s...)
	r0 := readOf(nil, -1, replayReads(twin, R))
	if !slices.Equal(s[J:J+R], r0) || !slices.Equal(s[J+R:], r0) {
		t.Fatalf("initial read %v, want %v", s[J:], r0)
	}
	var syms []int
	var steps []refStep
	for _, l := range append(slices.Clone(c.Syms), n.InputSize()-1) {
		for it := 0; it < c.Refine; it++ {
			r := append([]float64(nil), s[J:J+R]...)
			st := refStep{rec: n.NewRecord().(*record), l: l, first: it == 0, last: it == c.Refine-1, r: r}
			st.moved = st.first && l < n.L
			s2 := make([]float64, n.StateSize())
			n.Step(st.rec, s, s2, l, st.first, st.last)
			if st.moved {
				d := replayReads(twin, R)
				op := DecodeAction(st.rec.act)
				st.noop = op == grammar.Noop
				st.cstar = decisive(st.rec.act, op)
				// g = e(x) − r on the push side (f̂(v*) ≥ 0 for a no-op),
				// r − r_below on the pop side, with this step's draws;
				// with TwoSided, e(x) − r_below, whatever the side.
				pushSide := op == grammar.Push || (st.noop && st.rec.act[st.cstar] >= 0)
				e := readOf(append(slices.Clone(syms), l), -1, d)
				below := readOf(nil, -1, d) // a pop of the empty stack leaves it empty
				if len(syms) > 0 {
					below = readOf(syms[:len(syms)-1], syms[len(syms)-1], d)
				}
				st.g = make([]float64, R)
				for k := range st.g {
					switch {
					case n.TwoSided:
						st.g[k] = e[k] - below[k]
					case pushSide:
						st.g[k] = e[k] - r[k]
					default:
						st.g[k] = r[k] - below[k]
					}
				}
				popped := -1
				switch {
				case op == grammar.Push:
					syms = append(syms, l)
				case op == grammar.Pop && len(syms) > 0:
					popped = syms[len(syms)-1]
					syms = syms[:len(syms)-1]
				}
				st.rn = readOf(syms, popped, d)
				if !slices.Equal(st.rn, s2[J+R:]) {
					t.Fatalf("step %d: the Net's pending read %v, the stack %v and the draws give %v", len(steps), s2[J+R:], syms, st.rn)
				}
			}
			steps = append(steps, st)
			s = s2
		}
	}
	return s0, steps
}

// relaxedState loads z, r and input l into scratch (every state neuron
// counted active, so that the contraction is differentiable in all of z) and
// returns the relaxed new state z' = z'_ref + σ(pre) − σ(pre_ref) around the
// reference iteration ref.
func relaxedState(n *Net, scratch, ref *record, z, r []float64, l int) []float64 {
	copy(scratch.z, z)
	copy(scratch.r, r)
	scratch.l = l
	scratch.nz = scratch.nz[:0]
	for j := range z {
		scratch.nz = append(scratch.nz, j)
	}
	n.contract(scratch.pre, n.Ws, n.Bs, n.J, scratch)
	zn := make([]float64, n.J)
	for j := range zn {
		zn[j] = ref.zn[j] + nn.Sigmoid(scratch.pre[j]) - nn.Sigmoid(ref.pre[j])
	}
	return zn
}

// relaxedLoss is the function whose exact gradient the Net's derivatives
// define: the forward pass of steps, with every discrete decision (stack
// moves, decisive action neuron, read draws) held fixed, states relaxed as
// z' = z'_ref + σ(pre) − σ(pre_ref) and reads as
// r' = r'_ref + [no-op](r − r_ref) + g·(f̂(v*) − f̂(v*_ref)).
func relaxedLoss(n *Net, steps []refStep, s0 []float64, label float64) float64 {
	J, R := n.J, n.R()
	s := append([]float64(nil), s0...)
	scratch := n.NewRecord().(*record)
	loss := 0.0
	for _, st := range steps {
		ref := st.rec
		z, r, p := s[:J], s[J:J+R], s[J+R:]
		zn := relaxedState(n, scratch, ref, z, r, st.l)
		pn := append([]float64(nil), p...)
		switch {
		case st.moved:
			n.contract(scratch.act, n.Wa, n.Ba, n.A, scratch)
			df := 2*nn.Sigmoid(scratch.act[st.cstar]) - 2*nn.Sigmoid(ref.act[st.cstar])
			for k := range pn {
				pn[k] = st.rn[k] + st.g[k]*df
				if st.noop {
					pn[k] += r[k] - st.r[k]
				}
			}
		case st.first:
			copy(pn, r)
		}
		rn := append([]float64(nil), r...)
		if st.last {
			copy(rn, pn)
		}
		o := n.Bo[0]
		for i, v := range zn {
			o += n.Wo[i] * v
		}
		loss += nn.BCE(o, label)
		copy(s[:J], zn)
		copy(s[J:J+R], rn)
		copy(s[J+R:], pn)
	}
	return loss
}

// TestNetGradient checks the whole backward pass (reference BPTT over
// StepVJP and OutVJP) against central finite differences of relaxedLoss, for
// every parameter, both orders, with refinement and training-mode reads.
func TestNetGradient(t *testing.T) {
	moves, noops := checkNetGradient(t, false, false)
	if moves < 50 || noops < 50 {
		t.Errorf("the strings moved the stack %d times and left it %d times; the test needs many of both", moves, noops)
	}
}

// checkNetGradient is TestNetGradient, with or without NoReadGrad (whose
// relaxed loss has g = 0: the pending read does not depend on f̂(v*)) and
// TwoSided (whose g is the two sides' sum). It returns how many iterations
// moved the stack and how many left it.
func checkNetGradient(t *testing.T, noReadGrad, twoSided bool) (moves, noops int) {
	for order, seed := range orderSeeds(1, 6) {
		// A = 4: more action neurons than symbols (Options.Actions).
		for _, ra := range [][2]int{{1, 2}, {3, 2}, {1, 4}, {3, 4}} {
			refine, A := ra[0], ra[1]
			t.Run(fmt.Sprintf("order%d/seed%d/K%d/A%d", order, seed, refine, A), func(t *testing.T) {
				m := busyModel(t, order, 2, 4, A, seed)
				n := NewNet(m)
				n.NoReadGrad, n.TwoSided = noReadGrad, twoSided
				rng := rand.New(rand.NewPCG(seed, 2))
				c := nntest.Case{Syms: randomSyms(rng, 2, 10), Label: float64(seed % 2), Refine: refine, Seed: seed}
				s0, steps := referencePass(t, n, c)
				ops := map[bool]int{}
				for i, st := range steps {
					if st.moved {
						ops[st.noop]++
					}
					if noReadGrad {
						steps[i].g = make([]float64, len(st.g))
					}
				}
				moves += ops[false]
				noops += ops[true]
				got := make([]float64, len(m.Params))
				nntest.Gradient(n, c, got)
				p := m.Params
				orig := append([]float64(nil), p...)
				want := fd.Gradient(nil, func(x []float64) float64 {
					copy(p, x)
					return relaxedLoss(n, steps, s0, c.Label)
				}, orig, &fd.Settings{Formula: fd.Central, Step: 1e-6})
				copy(p, orig)
				for i := range got {
					if math.Abs(got[i]-want[i]) > 1e-6*math.Max(1, math.Abs(want[i])) {
						t.Fatalf("parameter %d: BPTT %.10g, finite differences %.10g (ops: %v)", i, got[i], want[i], ops)
					}
				}
			})
		}
	}
	return moves, noops
}

// stringAllocs is the allocations per string of n's whole training pass
// (Step, OutVJP, StepVJP, StepJVP) over 100 random symbols of a 3-symbol
// alphabet.
func stringAllocs(n *Net) float64 {
	rec := n.NewRecord()
	S := n.StateSize()
	s, s2, ds, grad := make([]float64, S), make([]float64, S), make([]float64, S), make([]float64, len(n.Params()))
	rng := rand.New(rand.NewPCG(1, 1))
	syms := randomSyms(rng, 3, 100)
	return testing.AllocsPerRun(10, func() {
		n.Start(s, rng)
		for _, l := range syms {
			n.Step(rec, s, s2, l, true, true)
			n.OutVJP(rec, 0.3, s2, grad)
			n.StepVJP(rec, s2, ds, grad)
			n.StepJVP(rec, ds, s2)
			s, s2 = s2, s
		}
	})
}

func TestNetAllocatesNothing(t *testing.T) {
	for _, order := range []Order{Second, Third} {
		for _, two := range []bool{false, true} {
			n := NewNet(busyModel(t, order, 3, 5, 3, 4))
			n.TwoSided = two
			if allocs := stringAllocs(n); allocs != 0 {
				t.Errorf("order %d, two-sided %v: %v allocations per string", order, two, allocs)
			}
		}
	}
}

// TestActionLossGradient checks ActionLoss's gradient against central
// finite differences of its value, with respect to every parameter and to
// the state and read before the iteration, for each target operation, both
// orders. The stack's discrete decisions do not enter the loss, so the
// finite differences of the recomputed iteration are exact references.
func TestActionLossGradient(t *testing.T) {
	for order, seed := range orderSeeds(1, 4) {
		for _, op := range []grammar.Op{grammar.Noop, grammar.Push, grammar.Pop} {
			t.Run(fmt.Sprintf("order%d/seed%d/%v", order, seed, op), func(t *testing.T) {
				m := busyModel(t, order, 2, 4, 2, seed)
				n := NewNet(m)
				rng := rand.New(rand.NewPCG(seed, 9))
				S := n.StateSize()
				s0, s2 := make([]float64, S), make([]float64, S)
				n.Start(s0, nil)
				for j := 1; j < n.J; j++ { // a busier state than the start's
					s0[j] = float64(rng.IntN(2))
				}
				for k := n.J; k < S; k++ {
					s0[k] = rng.Float64()
				}
				l := rng.IntN(2)
				loss := func(params, s []float64) float64 {
					copy(m.Params, params)
					n.stack.Reset()
					rec := n.NewRecord()
					n.Step(rec, s, s2, l, true, true)
					return n.ActionLoss(rec, int(op), 1.7, nil, nil)
				}
				p0 := append([]float64(nil), m.Params...)
				rec := n.NewRecord()
				n.stack.Reset()
				n.Step(rec, s0, s2, l, true, true)
				gotP, gotS := make([]float64, len(p0)), make([]float64, S)
				n.ActionLoss(rec, int(op), 1.7, gotS, gotP)
				wantP := fd.Gradient(nil, func(x []float64) float64 { return loss(x, s0) }, p0, &fd.Settings{Formula: fd.Central, Step: 1e-6})
				wantS := fd.Gradient(nil, func(x []float64) float64 { return loss(p0, x) }, s0, &fd.Settings{Formula: fd.Central, Step: 1e-6})
				copy(m.Params, p0)
				check := func(what string, got, want []float64, upto int) {
					nonzero := false
					for i := 0; i < upto; i++ {
						if math.Abs(got[i]-want[i]) > 1e-6*math.Max(1, math.Abs(want[i])) {
							t.Fatalf("%s %d: %.10g, finite differences %.10g", what, i, got[i], want[i])
						}
						nonzero = nonzero || got[i] != 0
					}
					if !nonzero {
						t.Fatalf("%s: zero gradient, the test checks nothing", what)
					}
				}
				check("parameter", gotP, wantP, len(p0))
				// The pending read (s[J+R:]) does not enter the action.
				check("state", gotS, wantS, n.J+n.R())
			})
		}
	}
}

// TestActionLossTargetsDecode: at the loss's minimum for each operation,
// DecodeAction gives that operation.
func TestActionLossTargetsDecode(t *testing.T) {
	for op, v := range map[grammar.Op]float64{grammar.Push: 30, grammar.Pop: -30, grammar.Noop: 0} {
		if got := DecodeAction([]float64{v, v}); got != op {
			t.Errorf("all action neurons at %v decode to %v, want %v", v, got, op)
		}
	}
}
