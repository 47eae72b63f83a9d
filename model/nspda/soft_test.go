package nspda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/nn/nntest"
)

// softNet returns a busy model's Net in SoftStack mode, sized for strings of
// maxLen symbols, at sharpness beta.
func softNet(t testing.TB, order Order, L, J, A int, seed uint64, maxLen int, beta float64) *Net {
	n := NewNet(busyModel(t, order, L, J, A, seed))
	n.SoftStack, n.Beta = true, beta
	n.Reserve(maxLen)
	return n
}

// refPolicy is π = (no-op, push, pop) of the superposition stack, written
// out directly from its definition (docs/design.md section 8b).
func refPolicy(act []float64, beta float64) [3]float64 {
	logits := []float64{0}
	kinds := []grammar.Op{grammar.Noop}
	for _, v := range act {
		logits = append(logits, beta*v+math.Log(nn.Sigmoid(beta*beta*(v-PushThreshold))), -beta*v+math.Log(nn.Sigmoid(beta*beta*(PopThreshold-v))))
		kinds = append(kinds, grammar.Push, grammar.Pop)
	}
	z := 0.0
	for _, l := range logits {
		z += math.Exp(l)
	}
	var pi [3]float64
	for i, l := range logits {
		pi[kinds[i]] += math.Exp(l) / z
	}
	return pi
}

// softForward runs n over c in training mode and returns each iteration's
// record and the loss.
func softForward(n *Net, c nntest.Case) ([]*record, float64) {
	s, s2 := make([]float64, n.StateSize()), make([]float64, n.StateSize())
	n.Start(s, rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15)))
	var recs []*record
	loss := 0.0
	for _, l := range append(append([]int(nil), c.Syms...), n.InputSize()-1) {
		for it := 0; it < c.Refine; it++ {
			rec := n.NewRecord().(*record)
			o := n.Step(rec, s, s2, l, it == 0, it == c.Refine-1)
			loss += nn.BCE(o, c.Label)
			recs = append(recs, rec)
			s, s2 = s2, s
		}
	}
	return recs, loss
}

// softRelaxedLoss is the function whose exact gradient SoftStack's
// derivatives define: the superposition stack and its reads computed here
// from their definitions, with the read draws replayed and the state neurons
// relaxed around the reference pass refs as z' = z'_ref + σ(pre) − σ(pre_ref).
func softRelaxedLoss(n *Net, refs []*record, c nntest.Case) float64 {
	J, R, L, D := n.J, n.R(), n.L, n.depth()
	twin := rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15))
	r := readOf(nil, -1, replayReads(twin, R))
	p := append([]float64(nil), r...)
	z := make([]float64, J)
	z[0] = 1
	S := make([][]float64, D)
	for i := range S {
		S[i] = make([]float64, L)
	}
	scratch := n.NewRecord().(*record)
	loss, i := 0.0, 0
	for _, l := range append(append([]int(nil), c.Syms...), n.InputSize()-1) {
		for it := 0; it < c.Refine; it++ {
			ref := refs[i]
			i++
			zn := relaxedState(n, scratch, ref, z, r, l)
			pn := append([]float64(nil), p...)
			switch {
			case it == 0 && l < L:
				n.contract(scratch.act, n.Wa, n.Ba, n.A, scratch)
				pi := refPolicy(scratch.act, n.beta())
				S2 := make([][]float64, D)
				for d := range S2 {
					S2[d] = make([]float64, L)
					for k := range S2[d] {
						S2[d][k] = pi[grammar.Noop] * S[d][k]
						if d > 0 {
							S2[d][k] += pi[grammar.Push] * S[d-1][k]
						}
						if d+1 < D {
							S2[d][k] += pi[grammar.Pop] * S[d+1][k]
						}
					}
				}
				S2[0][l] += pi[grammar.Push]
				dr := replayReads(twin, R)
				empty := 1.0
				for k := 0; k < L; k++ {
					T, P := S2[0][k], pi[grammar.Pop]*S[0][k]
					pn[k] = T*dr.top + (1-T)*(P*dr.popped+(1-P)*dr.base[k])
					empty -= T
				}
				pn[L] = empty*dr.top + (1-empty)*dr.base[L]
				S = S2
			case it == 0:
				copy(pn, r)
			}
			rn := append([]float64(nil), r...)
			if it == c.Refine-1 {
				copy(rn, pn)
			}
			o := n.Bo[0]
			for j, v := range zn {
				o += n.Wo[j] * v
			}
			loss += nn.BCE(o, c.Label)
			z, r, p = zn, rn, pn
		}
	}
	return loss
}

// TestSoftStackGradient checks SoftStack's whole backward pass (reference
// BPTT over StepVJP and OutVJP) against central finite differences of
// softRelaxedLoss for every parameter: both orders, refinement and two
// sharpnesses; and that the forward pass is that definition.
func TestSoftStackGradient(t *testing.T) {
	for order, seed := range orderSeeds(1, 4) {
		for _, refine := range []int{1, 3} {
			for _, beta := range []float64{1, 3} {
				t.Run(fmt.Sprintf("order%d/seed%d/K%d/beta%g", order, seed, refine, beta), func(t *testing.T) {
					n := softNet(t, order, 2, 4, 2, seed, 8, beta)
					rng := rand.New(rand.NewPCG(seed, 2))
					c := nntest.Case{Syms: randomSyms(rng, 2, 8), Label: float64(seed % 2), Refine: refine, Seed: seed}
					refs, loss := softForward(n, c)
					if ref := softRelaxedLoss(n, refs, c); math.Abs(ref-loss) > 1e-12*math.Max(1, loss) {
						t.Fatalf("forward loss %.15g, the definition's %.15g", loss, ref)
					}
					got := make([]float64, len(n.Params()))
					nntest.Gradient(n, c, got)
					p := n.Params()
					orig := append([]float64(nil), p...)
					want := fd.Gradient(nil, func(x []float64) float64 {
						copy(p, x)
						return softRelaxedLoss(n, refs, c)
					}, orig, &fd.Settings{Formula: fd.Central, Step: 1e-6})
					copy(p, orig)
					nonzeroWa := false
					for i := range got {
						if math.Abs(got[i]-want[i]) > 1e-6*math.Max(1, math.Abs(want[i])) {
							t.Fatalf("parameter %d: BPTT %.10g, finite differences %.10g", i, got[i], want[i])
						}
						off := len(n.Ws) + len(n.Bs)
						nonzeroWa = nonzeroWa || (i >= off && i < off+len(n.Wa) && got[i] != 0)
					}
					if !nonzeroWa {
						t.Fatal("no gradient reached the action weights")
					}
				})
			}
		}
	}
}

// TestSoftStackAdjoint: with SoftStack (and with it plus NoReadGrad),
// StepJVP and StepVJP are each other's transposes.
func TestSoftStackAdjoint(t *testing.T) {
	for order, seed := range orderSeeds(1, 5) {
		for _, noRead := range []bool{false, true} {
			n := softNet(t, order, 3, 4, 3, seed, 6, 2)
			n.NoReadGrad = noRead
			rng := rand.New(rand.NewPCG(seed, 1))
			for _, refine := range []int{1, 3} {
				nntest.CheckAdjoint(t, n, nntest.Case{Syms: randomSyms(rng, 3, 10), Label: 1, Refine: refine, Seed: seed}, 1e-10)
			}
		}
	}
}

// TestSoftStackEvaluatesDigitally: with SoftStack on, evaluation mode (Start
// with a nil rng) runs the digital stack: it classifies exactly as the
// Runner does, whatever the sharpness.
func TestSoftStackEvaluatesDigitally(t *testing.T) {
	for order, seed := range orderSeeds(0, 9) {
		n := softNet(t, order, 3, 5, 3, seed, 4, 0.5)
		run := n.NewRunner()
		cls := nn.NewClassifier(n, 1)
		rng := rand.New(rand.NewPCG(seed, 9))
		for i := 0; i < 20; i++ {
			syms := randomSyms(rng, 3, rng.IntN(30)) // longer than reserved: Classify reserves
			a1, y1 := run.Classify(syms)
			a2, y2 := cls.Classify(syms)
			if a1 != a2 || y1 != y2 {
				t.Fatalf("order %d seed %d: runner (%v, %v), soft net in evaluation mode (%v, %v)", order, seed, a1, y1, a2, y2)
			}
		}
	}
}

// TestSoftStackSharpLimit: as β grows, π tends to the one-hot of
// DecodeAction, and at β = 10⁴ a training pass on the superposition stack
// gives the digital training pass's outputs (same read draws).
func TestSoftStackSharpLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for trial := 0; trial < 2000; trial++ {
		act := make([]float64, 1+rng.IntN(4))
		for i := range act {
			act[i] = 2 * rng.NormFloat64() * 0.5
		}
		if nearTie(act) {
			continue
		}
		pi := refPolicy(act, 200)
		if op := DecodeAction(act); pi[op] < 1-1e-6 {
			t.Fatalf("act %v: DecodeAction %v, π at β=200 %v", act, op, pi)
		}
	}
	agree, total := 0, 0
	for order, seed := range orderSeeds(1, 10) {
		soft := softNet(t, order, 3, 5, 3, seed, 30, 1e4)
		digital := NewNet(soft.Model)
		srng := rand.New(rand.NewPCG(seed, 4))
		for i := 0; i < 10; i++ {
			c := nntest.Case{Syms: randomSyms(srng, 3, 1+srng.IntN(25)), Label: 1, Refine: 2, Seed: seed*100 + uint64(i)}
			total++
			if a, b := nntest.Loss(soft, c), nntest.Loss(digital, c); math.Abs(a-b) < 1e-9*math.Max(1, b) {
				agree++
			}
		}
	}
	if agree < total*95/100 {
		t.Errorf("at β = 10⁴ the superposition stack's training loss equals the digital one's on %d of %d strings", agree, total)
	}
}

// nearTie reports whether a pre-activation lies within 0.01 of a threshold,
// or a pushing and a popping neuron within 0.1 of each other in |v|: where
// π at a finite β has not yet settled on DecodeAction's choice.
func nearTie(act []float64) bool {
	for i, v := range act {
		if math.Abs(v-PushThreshold) < 0.01 || math.Abs(v-PopThreshold) < 0.01 {
			return true
		}
		for _, u := range act[:i] {
			if Ternary(u)*Ternary(v) < 0 && math.Abs(math.Abs(u)-math.Abs(v)) < 0.1 {
				return true
			}
		}
	}
	return false
}

// TestSoftStackPolicyStable: π stays finite and normalized at extreme
// sharpness and pre-activations.
func TestSoftStackPolicyStable(t *testing.T) {
	n := softNet(t, Third, 2, 3, 2, 1, 4, 1e6)
	sr := &softRecord{}
	n.growSoft(sr)
	for _, act := range [][]float64{{1e6, -1e6}, {-800, 0}, {0, 0}, {PushThreshold, PopThreshold}} {
		n.softPolicy(sr, act)
		sum := sr.pi[0] + sr.pi[1] + sr.pi[2]
		if math.IsNaN(sum) || math.Abs(sum-1) > 1e-12 {
			t.Errorf("act %v: π = %v", act, sr.pi)
		}
		for _, d := range sr.dlam {
			if math.IsNaN(d) || math.IsInf(d, 0) {
				t.Errorf("act %v: ∂λ/∂v = %v", act, sr.dlam)
			}
		}
	}
}

func TestSoftStackAllocatesNothing(t *testing.T) {
	for _, order := range []Order{Second, Third} {
		n := softNet(t, order, 3, 5, 3, 4, 100, 2)
		if allocs := stringAllocs(n); allocs != 0 {
			t.Errorf("order %d: %v allocations per string", order, allocs)
		}
	}
}

// TestSoftStackReserve: the state grows with the reservation in SoftStack
// mode only, and records made before keep working.
func TestSoftStackReserve(t *testing.T) {
	m := busyModel(t, Third, 2, 3, 2, 1)
	d := NewNet(m)
	before := d.StateSize()
	d.Reserve(100)
	if d.StateSize() != before || d.Reserved() != 100 {
		t.Errorf("digital: state %d after Reserve(100), want %d", d.StateSize(), before)
	}
	n := softNet(t, Third, 2, 3, 2, 1, 3, 1)
	rec := n.NewRecord()
	if got, want := n.StateSize(), 3+2*3+5*2; got != want {
		t.Errorf("soft, 3 symbols: state %d, want %d", got, want)
	}
	n.Reserve(9)
	s, s2 := make([]float64, n.StateSize()), make([]float64, n.StateSize())
	n.Start(s, rand.New(rand.NewPCG(1, 1)))
	for _, l := range []int{0, 1, 0, 0, 1, 1, 0, 1, 0} {
		n.Step(rec, s, s2, l, true, true)
		s, s2 = s2, s
	}
}

// TestSetSoftFalseTrainsDigitally: a SoftStack net after SetSoft(false)
// trains exactly as the same net without SoftStack (loss and gradient, the
// same read draws), its cells staying 0; SetSoft(true) returns to the
// superposition stack.
func TestSetSoftFalseTrainsDigitally(t *testing.T) {
	for order, seed := range orderSeeds(1, 4) {
		soft := softNet(t, order, 3, 5, 3, seed, 12, 2)
		plain := NewNet(soft.Model)
		rng := rand.New(rand.NewPCG(seed, 5))
		c := nntest.Case{Syms: randomSyms(rng, 3, 12), Label: float64(seed % 2), Refine: 2, Seed: seed}
		soft.SetSoft(false)
		g1, g2 := make([]float64, len(soft.Params())), make([]float64, len(soft.Params()))
		l1, l2 := nntest.Gradient(soft, c, g1), nntest.Gradient(plain, c, g2)
		if l1 != l2 {
			t.Fatalf("order %d seed %d: loss %v on the digital stack of a soft net, %v without SoftStack", order, seed, l1, l2)
		}
		for i := range g1 {
			if g1[i] != g2[i] {
				t.Fatalf("order %d seed %d: parameter %d: gradient %v, without SoftStack %v", order, seed, i, g1[i], g2[i])
			}
		}
		recs, _ := softForward(soft, c)
		for _, r := range recs {
			if r.soft.on {
				t.Fatalf("order %d seed %d: an iteration moved the superposition stack after SetSoft(false)", order, seed)
			}
		}
		soft.SetSoft(true)
		if recs, _ := softForward(soft, c); !recs[0].soft.on {
			t.Fatalf("order %d seed %d: SetSoft(true) did not return to the superposition stack", order, seed)
		}
	}
}

// TestSoftStraight: with SoftStraight the superposition stack moves by the
// digital operation, so a training pass gives the digital training pass's
// loss at any sharpness (β = 1 here, where the soft stack's differs); its
// VJP and JVP are adjoint; and its gradient is not the soft stack's.
func TestSoftStraight(t *testing.T) {
	differ := 0
	for order, seed := range orderSeeds(1, 6) {
		st := softNet(t, order, 3, 5, 3, seed, 30, 1)
		st.SoftStraight = true
		soft := softNet(t, order, 3, 5, 3, seed, 30, 1)
		digital := NewNet(st.Model)
		srng := rand.New(rand.NewPCG(seed, 4))
		for i := 0; i < 10; i++ {
			c := nntest.Case{Syms: randomSyms(srng, 3, 1+srng.IntN(25)), Label: 1, Refine: 2, Seed: seed*100 + uint64(i)}
			a, b := nntest.Loss(st, c), nntest.Loss(digital, c)
			if math.Abs(a-b) > 1e-9*math.Max(1, b) {
				t.Fatalf("order %d seed %d string %d: straight-through loss %v, digital %v", order, seed, i, a, b)
			}
			if s := nntest.Loss(soft, c); math.Abs(s-b) > 1e-6 {
				differ++
			}
		}
		rng := rand.New(rand.NewPCG(seed, 1))
		for _, refine := range []int{1, 3} {
			nntest.CheckAdjoint(t, st, nntest.Case{Syms: randomSyms(rng, 3, 10), Label: 1, Refine: refine, Seed: seed}, 1e-10)
		}
	}
	if differ == 0 {
		t.Fatal("the soft stack at β = 1 gives the digital loss too: the test checks nothing")
	}
}
