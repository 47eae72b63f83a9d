package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/train"
)

// small returns spec's model over {a,b} at a size that keeps RTRL cheap,
// third order where the model has an order.
func small(t *testing.T, spec nn.Spec) nn.Model { return smallOrder(t, spec, 3) }

func smallOrder(t *testing.T, spec nn.Spec, order int) nn.Model {
	t.Helper()
	m, err := spec.New([]rune("ab"), opts(spec, 4, map[string]any{"stacks": 2, "order": order}), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := m.(nn.Reserver); ok {
		r.Reserve(12)
	}
	return m
}

// TestBPTTEqualsRTRLEveryModel: for every registered model, both orders of
// the models that have one, the two exact estimators give the same gradient
// to 1e-8 relative.
func TestBPTTEqualsRTRLEveryModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, spec := range Specs() {
		if spec.Name != "nspda" && spec.Name != "nnpda" {
			t.Run(spec.Name, func(t *testing.T) { bpttEqualsRTRL(t, small(t, spec), rng) })
			continue
		}
		for _, order := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/order%d", spec.Name, order), func(t *testing.T) {
				bpttEqualsRTRL(t, smallOrder(t, spec, order), rng)
			})
		}
	}
}

func bpttEqualsRTRL(t *testing.T, m nn.Model, rng *rand.Rand) {
	t.Helper()
	for trial := 0; trial < 3; trial++ {
		ex := train.Example{Syms: make([]int, 3+rng.IntN(8)), Label: float64(trial % 2)}
		for i := range ex.Syms {
			ex.Syms[i] = rng.IntN(2)
		}
		gb := make([]float64, len(m.Params()))
		gr := make([]float64, len(m.Params()))
		(&train.BPTT{}).Gradient(m, nil, ex, 2, rand.New(rand.NewPCG(5, 5)), gb)
		(&train.RTRL{}).Gradient(m, nil, ex, 2, rand.New(rand.NewPCG(5, 5)), gr)
		scale := 0.0
		for _, v := range gb {
			scale = math.Max(scale, math.Abs(v))
		}
		if scale == 0 {
			t.Fatal("zero gradient")
		}
		for i := range gb {
			if math.Abs(gb[i]-gr[i]) > 1e-8*scale {
				t.Fatalf("parameter %d: BPTT %.12g, RTRL %.12g", i, gb[i], gr[i])
			}
		}
	}
}

// TestSaveLoadEveryModel: a saved model loads back with the same
// parameters and classifies the same way.
func TestSaveLoadEveryModel(t *testing.T) {
	dir := t.TempDir()
	for _, spec := range Specs() {
		m := small(t, spec)
		path := filepath.Join(dir, spec.Name+".json")
		if err := Save(path, m, 2); err != nil {
			t.Fatalf("%s: %v", spec.Name, err)
		}
		got, refine, err := Load(path)
		if err != nil {
			t.Fatalf("%s: %v", spec.Name, err)
		}
		if got.Kind() != spec.Name || refine != 2 {
			t.Errorf("%s: loaded kind %q, refine %d", spec.Name, got.Kind(), refine)
		}
		a, b := m.Params(), got.Params()
		if len(a) != len(b) {
			t.Fatalf("%s: %d parameters, loaded %d", spec.Name, len(a), len(b))
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%s: parameter %d differs", spec.Name, i)
			}
		}
		syms := []int{0, 0, 1, 1, 0}
		_, y1 := Classifier(m, 2).Classify(syms)
		_, y2 := Classifier(got, 2).Classify(syms)
		if y1 != y2 {
			t.Errorf("%s: prediction %v before saving, %v after", spec.Name, y1, y2)
		}
	}
}
