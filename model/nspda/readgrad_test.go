package nspda

import (
	"math/rand/v2"
	"testing"

	"github.com/nspda/nspda/nn"
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
	for order, seed := range orderSeeds(1, 5) {
		n := NewNet(busyModel(t, order, 3, 4, 3, seed))
		n.NoReadGrad = true
		rng := rand.New(rand.NewPCG(seed, 1))
		for _, refine := range []int{1, 4} {
			nntest.CheckAdjoint(t, n, nntest.Case{Syms: randomSyms(rng, 3, 12), Label: 1, Refine: refine, Seed: seed}, 1e-10)
		}
	}
}

// TestSpec: the registered NSPDA is built with the options given (order,
// state neurons, the read-gradient ablation), its weights inside ±Init, and
// it classifies with its Runner.
func TestSpec(t *testing.T) {
	spec := Specs[0]
	m, err := spec.New([]rune("ab"), nn.Options{Hidden: 5, Own: &Options{Order: 2, NoReadGrad: true}}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	n := m.(*Net)
	if n.Order != Second || n.J != 5 || n.A != 2 || !n.NoReadGrad {
		t.Errorf("order %d, J %d, A %d, no-read-grad %v; want 2, 5, 2, true", n.Order, n.J, n.A, n.NoReadGrad)
	}
	for i, v := range n.Params() {
		if v < -Init || v > Init || v == 0 {
			t.Fatalf("parameter %d = %g, want inside (−%g, %g)", i, v, Init, Init)
		}
	}
	if r, ok := n.Classifier(0).(*Runner); !ok || r.Refine != 1 {
		t.Errorf("Classifier(0) = %T, want a *Runner with Refine 1", n.Classifier(0))
	}
	def, _ := spec.New([]rune("ab"), nn.Options{}, rand.New(rand.NewPCG(1, 2)))
	if d := def.(*Net); d.Order != Third || d.J != 8 || d.NoReadGrad {
		t.Errorf("defaults: order %d, J %d, no-read-grad %v; want 3, 8, false", d.Order, d.J, d.NoReadGrad)
	}
}
