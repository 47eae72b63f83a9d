// Package traintest holds helpers for tests that drive package train's
// training loop from a model package.
package traintest

import (
	"context"
	"slices"
	"testing"

	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/train"
)

// NoiseRun trains m for two epochs of plain SGD (BPTT, rate 0.1, clip 13, no
// curriculum) on exs, validating on the first four, with the noise
// regularizer at percent and the net's NoiseMatrices passed to the driver if
// tensors (m must then implement train.Tensored). It returns the final
// parameters, so that runs with and without noise can be compared exactly.
func NoiseRun(t testing.TB, m nn.Model, exs []train.Example, percent float64, tensors bool) []float64 {
	t.Helper()
	lengths := make([]int, len(exs))
	for i, e := range exs {
		lengths[i] = len(e.Syms)
	}
	cur, err := train.NewCurriculum("standard", lengths)
	if err != nil {
		t.Fatal(err)
	}
	env := train.Env{Net: m, Train: exs, Valid: exs[:min(4, len(exs))],
		Classifier: func() evaluate.Classifier { return nn.NewClassifier(m, 1) }}
	if tensors {
		tm, ok := m.(train.Tensored)
		if !ok {
			t.Fatalf("%T lists no noise matrices", m)
		}
		env.Tensors = tm.NoiseMatrices()
	}
	set := train.Settings{Estimator: &train.BPTT{}, Curriculum: cur, Refine: 1, MaxEpochs: 2,
		Schedule: train.Schedule{LR0: 0.1}, Clip: 13, Noise: train.Noise{Percent: percent}, Seed: 1}
	if _, err := train.Run(context.Background(), env, set, NopRecorder{}, nil); err != nil {
		t.Fatal(err)
	}
	return slices.Clone(m.Params())
}

// NopRecorder is a train.Recorder that keeps nothing.
type NopRecorder struct{}

func (NopRecorder) Epoch(train.Metrics, float64) error { return nil }
func (NopRecorder) Checkpoint(*train.Checkpoint) error { return nil }
