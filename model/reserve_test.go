package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nspda/nspda/model/nnpda"
	"github.com/nspda/nspda/nn"
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
