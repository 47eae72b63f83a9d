package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nspda/nspda/model/nnpda"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/nn/nntest"
)

// TestClassifierReserves checks that the classifier `nspda eval` and
// `classify` use grows a freshly built model's memory (sized for 60 symbols)
// for longer strings. The weights are N(0, 2²), decisive enough for the
// memories to move (and the NNPDA pushes at every symbol), so that the
// memory's size shows in the predictions: strings of 200 to 400 symbols get bit for bit the
// prediction of the same model Reserve()d for 400, which the classifier of
// the model left at 60 (the defect, reproduced by stepping it by hand) does
// not. A short string afterwards does not shrink the reservation, and costs
// no allocation.
func TestClassifierReserves(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	strs := make([][]int, 6)
	for i := range strs {
		strs[i] = make([]int, 200+rng.IntN(201))
		for k := range strs[i] {
			strs[i][k] = rng.IntN(2)
		}
	}
	for _, c := range []struct {
		name  string
		order int
	}{{"stack-rnn", 0}, {"list-rnn", 0}, {"nnpda", 2}, {"nnpda", 3}} {
		build := func() nn.Model {
			spec, err := Lookup(c.name)
			if err != nil {
				t.Fatal(err)
			}
			wrng := rand.New(rand.NewPCG(1, 2))
			m, err := spec.New([]rune("ab"), opts(spec, 0, map[string]any{"order": c.order}), wrng)
			if err != nil {
				t.Fatal(err)
			}
			for i := range m.Params() {
				m.Params()[i] = 2 * wrng.NormFloat64()
			}
			if n, ok := m.(*nnpda.Model); ok {
				n.Ba[0] = 20 // push at every symbol: past 60, pushes overflow
			}
			return m
		}
		m, ref, old := build(), build(), build()
		if got := m.(nn.Reserver).Reserved(); got != 60 {
			t.Fatalf("%s order %d: a new model is reserved for %d symbols, want 60", c.name, c.order, got)
		}
		ref.(nn.Reserver).Reserve(400)
		cls, want := Classifier(m, 1), nn.NewClassifier(ref, 1)
		differs := 0
		longest := 0
		for _, syms := range strs {
			_, y := cls.Classify(syms)
			_, yw := want.Classify(syms)
			if math.Float64bits(y) != math.Float64bits(yw) {
				t.Errorf("%s order %d, length %d: y = %v, reserved for 400: %v", c.name, c.order, len(syms), y, yw)
			}
			if unreserved(old, syms) != yw {
				differs++
			}
			longest = max(longest, len(syms))
			if got := m.(nn.Reserver).Reserved(); got != longest {
				t.Errorf("%s order %d: reserved for %d symbols after %d, want %d", c.name, c.order, got, len(syms), longest)
			}
		}
		if differs == 0 {
			t.Errorf("%s order %d: a 60-symbol memory classifies every long string like a 400-symbol one; the test shows nothing", c.name, c.order)
		}
		short := strs[0][:10]
		if allocs := testing.AllocsPerRun(10, func() { cls.Classify(short) }); allocs != 0 {
			t.Errorf("%s order %d: %v allocations per short string", c.name, c.order, allocs)
		}
		if got := m.(nn.Reserver).Reserved(); got != longest {
			t.Errorf("%s order %d: reserved for %d symbols after a short string, want %d (never shrink)", c.name, c.order, got, longest)
		}
	}
}

// unreserved is the classifier as it was: it reads syms with m's memory as
// it is, however long syms.
func unreserved(m nn.Model, syms []int) float64 {
	n := m.StateSize()
	s, s2, rec := make([]float64, n), make([]float64, n), m.NewRecord()
	m.Start(s, nil)
	var o float64
	for t := 0; t <= len(syms); t++ {
		l := m.InputSize() - 1
		if t < len(syms) {
			l = syms[t]
		}
		o = m.Step(rec, s, s2, l, true, true)
		s, s2 = s2, s
	}
	return nn.Sigmoid(o)
}

// TestReserveGradientExact checks that a memory reserved for more symbols
// than a string has gives the string's loss and gradient bit for bit, for
// every model with a sized memory (the Reserver contract, for training as
// well as for reading).
func TestReserveGradientExact(t *testing.T) {
	for _, c := range []struct {
		name string
		set  map[string]any
	}{
		{"stack-rnn", nil}, {"list-rnn", nil},
		{"nnpda", map[string]any{"order": 2}}, {"nnpda", map[string]any{"order": 3}},
		{"nspda", map[string]any{"order": 3, "soft_stack": true}},
		{"nspda", map[string]any{"order": 2, "soft_stack": true}},
	} {
		spec, err := Lookup(c.name)
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(4) {
			rng := rand.New(rand.NewPCG(seed, 7))
			syms := make([]int, 4+rng.IntN(9))
			for k := range syms {
				syms[k] = rng.IntN(2)
			}
			cs := nntest.Case{Syms: syms, Label: float64(seed % 2), Refine: 1 + int(seed%2), Seed: seed}
			var loss [2]float64
			var grad [2][]float64
			var size [2]int
			var w []float64
			for i, depth := range []int{len(syms), 45} {
				m, err := spec.New([]rune("ab"), opts(spec, 0, c.set), rand.New(rand.NewPCG(seed, 1)))
				if err != nil {
					t.Fatal(err)
				}
				if w == nil {
					w = make([]float64, len(m.Params()))
					for p := range w {
						w[p] = rng.NormFloat64()
					}
				}
				copy(m.Params(), w)
				m.(nn.Reserver).Reserve(depth)
				grad[i], size[i] = make([]float64, len(w)), m.StateSize()
				loss[i] = nntest.Gradient(m, cs, grad[i])
			}
			if size[0] == size[1] {
				t.Fatalf("%s %v: the state has %d values for %d symbols and for 45; the test shows nothing", c.name, c.set, size[0], len(syms))
			}
			if math.Float64bits(loss[0]) != math.Float64bits(loss[1]) {
				t.Errorf("%s %v seed %d: loss %v reserved for %d symbols, %v for 45", c.name, c.set, seed, loss[0], len(syms), loss[1])
			}
			for p := range grad[0] {
				if math.Float64bits(grad[0][p]) != math.Float64bits(grad[1][p]) {
					t.Errorf("%s %v seed %d: gradient %d is %v reserved for %d symbols, %v for 45", c.name, c.set, seed, p, grad[0][p], len(syms), grad[1][p])
					break
				}
			}
		}
	}
}
