package rnn

import (
	"slices"
	"testing"

	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/train"
	"github.com/nspda/nspda/train/traintest"
)

// The training driver perturbs a net's tensors only if it lists them, and
// experiment.Train lists them only for HigherOrder specs.
var _ train.Tensored = (*SecondOrder)(nil)

// TestSecondNoiseMatrices checks that the matrices partition W exactly, one
// matrix per (to-neuron i, from-neuron j), in the NSPDA's order: setting
// matrix i·J+j sets W[i,j,k] for every input k (read through Weight) and no
// other parameter.
func TestSecondNoiseMatrices(t *testing.T) {
	m := newModel(t, "second-order", 5, 1).(*SecondOrder)
	if !lookup(t, "second-order").HigherOrder {
		t.Fatal("second-order is not HigherOrder: its tensors would not be perturbed")
	}
	J, X := m.lay.H, m.lay.X
	tensors := m.NoiseMatrices()
	if len(tensors) != 1 || len(tensors[0]) != J*J {
		t.Fatalf("%d tensors, want 1 of %d matrices", len(tensors), J*J)
	}
	p := m.Params()
	seen := make([]int, len(p))
	for n, mat := range tensors[0] {
		if len(mat) != X {
			t.Errorf("matrix %d has %d entries, want X = %d", n, len(mat), X)
		}
		clear(p)
		for _, idx := range mat {
			if idx < 0 || idx >= len(m.p.W) {
				t.Fatalf("matrix %d lists %d, outside W (0..%d)", n, idx, len(m.p.W)-1)
			}
			seen[idx]++
			p[idx] = 1
		}
		for i := range J {
			for j := range J {
				for k := range X {
					if want := float64(b2i(i*J+j == n)); *m.Weight(i, j, k) != want {
						t.Errorf("matrix %d: W[%d,%d,%d] = %v, want %v", n, i, j, k, *m.Weight(i, j, k), want)
					}
				}
			}
		}
	}
	for idx, c := range seen[:len(m.p.W)] {
		if c != 1 {
			t.Errorf("W entry %d is listed %d times, want once", idx, c)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestSecondNoiseTrains checks end to end that the noise regularizer now
// changes a second-order net's training, and that it is the listed tensors
// that do it: without them (the defect) noise 15 trains exactly as noise 0.
func TestSecondNoiseTrains(t *testing.T) {
	run := func(percent float64, tensors bool) []float64 {
		m := newModel(t, "second-order", 4, 1)
		return noiseRun(t, m, percent, tensors)
	}
	clean := run(0, true)
	if got := run(15, false); !slices.Equal(got, clean) {
		t.Fatal("noise without tensors changed training")
	}
	if got := run(15, true); slices.Equal(got, clean) {
		t.Error("noise 15 trains exactly as noise 0")
	}
}

// noiseRun trains m (traintest.NoiseRun) on a toy set.
func noiseRun(t *testing.T, m nn.Model, percent float64, tensors bool) []float64 {
	t.Helper()
	var exs []train.Example
	for _, c := range toySet(24, 2) {
		exs = append(exs, train.Example{Syms: c.Syms, Label: c.Label})
	}
	return traintest.NoiseRun(t, m, exs, percent, tensors)
}
