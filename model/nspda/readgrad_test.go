package nspda

import (
	"math/rand/v2"
	"testing"

	"github.com/nspda/nspda/nn/nntest"
)

// TestNoReadGradGradient: with NoReadGrad the backward pass is the exact
// gradient of the relaxed loss in which the pending read does not depend on
// the decisive action neuron (g = 0), and nothing else changes.
func TestNoReadGradGradient(t *testing.T) {
	if moves, _ := checkNetGradient(t, true); moves < 50 {
		t.Errorf("the strings moved the stack %d times; the test needs many", moves)
	}
}

// TestNoReadGradAdjoint: with NoReadGrad, StepJVP and StepVJP remain each
// other's transposes (UORO uses one, BPTT the other).
func TestNoReadGradAdjoint(t *testing.T) {
	for _, order := range []Order{Second, Third} {
		for seed := uint64(1); seed < 6; seed++ {
			n := NewNet(busyModel(t, order, 3, 4, 3, seed))
			n.NoReadGrad = true
			rng := rand.New(rand.NewPCG(seed, 1))
			for _, refine := range []int{1, 4} {
				nntest.CheckAdjoint(t, n, nntest.Case{Syms: randomSyms(rng, 3, 12), Label: 1, Refine: refine, Seed: seed}, 1e-10)
			}
		}
	}
}
