package nspda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/nn/nntest"
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
	for _, order := range []Order{Second, Third} {
		for seed := uint64(0); seed < 30; seed++ {
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
}

func TestNetAdjoint(t *testing.T) {
	for _, order := range []Order{Second, Third} {
		for seed := uint64(1); seed < 10; seed++ {
			m := busyModel(t, order, 3, 4, 3, seed)
			rng := rand.New(rand.NewPCG(seed, 1))
			for _, refine := range []int{1, 4} {
				nntest.CheckAdjoint(t, NewNet(m), nntest.Case{Syms: randomSyms(rng, 3, 12), Label: 1, Refine: refine, Seed: seed}, 1e-10)
			}
		}
	}
}

// relaxedLoss is the function whose exact gradient the Net's derivatives
// define: the forward pass recorded in refs, with every discrete decision
// (stack moves, decisive action neuron, read draws) held fixed, states
// relaxed as z' = z'_ref + σ(pre) − σ(pre_ref) and reads as
// r' = r'_ref + [no-op](r − r_ref) + g·(f̂(v*) − f̂(v*_ref)).
func relaxedLoss(n *Net, refs []*record, s0 []float64, label float64) float64 {
	J, R := n.J, n.R()
	s := append([]float64(nil), s0...)
	scratch := n.NewRecord().(*record)
	loss := 0.0
	for _, ref := range refs {
		z, r, p := s[:J], s[J:J+R], s[J+R:]
		copy(scratch.z, z)
		copy(scratch.r, r)
		scratch.l = ref.l
		scratch.nz = scratch.nz[:0]
		for j := range z {
			scratch.nz = append(scratch.nz, j)
		}
		n.contract(scratch.pre, n.Ws, n.Bs, J, scratch)
		zn := make([]float64, J)
		for i := range zn {
			zn[i] = ref.zn[i] + Sigmoid(scratch.pre[i]) - Sigmoid(ref.pre[i])
		}
		pn := append([]float64(nil), p...)
		switch {
		case ref.moved:
			n.contract(scratch.act, n.Wa, n.Ba, n.A, scratch)
			df := 2*Sigmoid(scratch.act[ref.cstar]) - 2*Sigmoid(ref.act[ref.cstar])
			for k := range pn {
				pn[k] = ref.rn[k] + ref.g[k]*df
				if ref.noop {
					pn[k] += r[k] - ref.r[k]
				}
			}
		case ref.first:
			copy(pn, r)
		}
		rn := append([]float64(nil), r...)
		if ref.last {
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
	moves, noops := 0, 0
	defer func() {
		if moves < 50 || noops < 50 {
			t.Errorf("the strings moved the stack %d times and left it %d times; the test needs many of both", moves, noops)
		}
	}()
	for _, order := range []Order{Second, Third} {
		for seed := uint64(1); seed <= 6; seed++ {
			for _, refine := range []int{1, 3} {
				t.Run(fmt.Sprintf("order%d/seed%d/K%d", order, seed, refine), func(t *testing.T) {
					m := busyModel(t, order, 2, 4, 2, seed)
					n := NewNet(m)
					rng := rand.New(rand.NewPCG(seed, 2))
					c := nntest.Case{Syms: randomSyms(rng, 2, 10), Label: float64(seed % 2), Refine: refine, Seed: seed}
					// Reference pass, keeping records.
					s0 := make([]float64, n.StateSize())
					var refs []*record
					s := make([]float64, n.StateSize())
					n.Start(s, rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)))
					copy(s0, s)
					ops := map[bool]int{}
					for _, l := range append(c.Syms, n.InputSize()-1) {
						for it := 0; it < refine; it++ {
							rec := n.NewRecord().(*record)
							s2 := make([]float64, n.StateSize())
							n.Step(rec, s, s2, l, it == 0, it == refine-1)
							refs = append(refs, rec)
							if rec.moved {
								ops[rec.noop]++
							}
							s = s2
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
						return relaxedLoss(n, refs, s0, c.Label)
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
	}
}

func TestNetAllocatesNothing(t *testing.T) {
	for _, order := range []Order{Second, Third} {
		n := NewNet(busyModel(t, order, 3, 5, 3, 4))
		rec := n.NewRecord()
		s, s2, ds, grad := make([]float64, n.StateSize()), make([]float64, n.StateSize()), make([]float64, n.StateSize()), make([]float64, len(n.Params()))
		rng := rand.New(rand.NewPCG(1, 1))
		syms := randomSyms(rng, 3, 100)
		allocs := testing.AllocsPerRun(10, func() {
			n.Start(s, rng)
			for _, l := range syms {
				n.Step(rec, s, s2, l, true, true)
				n.OutVJP(rec, 0.3, s2, grad)
				n.StepVJP(rec, s2, ds, grad)
				n.StepJVP(rec, ds, s2)
				s, s2 = s2, s
			}
		})
		if allocs != 0 {
			t.Errorf("order %d: %v allocations per string", order, allocs)
		}
	}
}
