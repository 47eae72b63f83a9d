package nspda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/nspda/nspda/grammar"
)

// TestActionLossGradient checks ActionLoss's gradient against central
// finite differences of its value, with respect to every parameter and to
// the state and read before the iteration, for each target operation, both
// orders. The stack's discrete decisions do not enter the loss, so the
// finite differences of the recomputed iteration are exact references.
func TestActionLossGradient(t *testing.T) {
	for _, order := range []Order{Second, Third} {
		for seed := uint64(1); seed <= 4; seed++ {
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
