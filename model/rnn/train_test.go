package rnn

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nspda/nspda/nn/nntest"
)

// toySet is a few dozen strings over {a, b} of lengths 1..8, labelled by
// whether they contain "bb".
func toySet(n int, seed uint64) []nntest.Case {
	rng := rand.New(rand.NewPCG(seed, 3))
	var cs []nntest.Case
	for len(cs) < n {
		w := make([]byte, 1+rng.IntN(8))
		syms := make([]int, len(w))
		for i := range w {
			syms[i] = rng.IntN(2)
			w[i] = "ab"[syms[i]]
		}
		label := 0.0
		if strings.Contains(string(w), "bb") {
			label = 1
		}
		cs = append(cs, nntest.Case{Syms: syms, Label: label, Refine: 1})
	}
	return cs
}

// TestTrainToy checks that a few hundred plain gradient steps at least halve
// every model's total loss on the toy set: lr 0.1 and element-wise clipping
// at 13 (the first-order protocol of baselines.md §4), on the gradient of the
// mean loss over the whole set. Since the label is copied to every
// iteration, prefixes shared by positive and negative strings keep the loss
// well above 0, and one-string steps are too noisy for a stable test.
func TestTrainToy(t *testing.T) {
	set := toySet(40, 1)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			m := newModel(t, name, 8, 1)
			total := func() float64 {
				s := 0.0
				for _, c := range set {
					s += nntest.Loss(m, c)
				}
				return s
			}
			before := total()
			p := m.Params()
			grad := make([]float64, len(p))
			for step := 0; step < 600; step++ {
				clear(grad)
				for _, c := range set {
					nntest.Gradient(m, c, grad)
				}
				for i, g := range grad {
					p[i] -= 0.1 * max(-13, min(13, g/float64(len(set))))
				}
			}
			after := total()
			t.Logf("total loss %.3f -> %.3f", before, after)
			if after > before/2 {
				t.Errorf("total loss %.3f -> %.3f: not halved", before, after)
			}
		})
	}
}
