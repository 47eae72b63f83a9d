package rnn

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/nn/nntest"
)

var names = []string{"elman", "lstm", "lstm-peephole", "gru", "mi-rnn", "mi-lstm", "mi-gru", "second-order"}

func lookup(t testing.TB, name string) nn.Spec {
	t.Helper()
	for _, s := range Specs {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no spec %q", name)
	return nn.Spec{}
}

// newModel builds model name over alphabet "ab" with the given hidden size
// (0: default) from seed.
func newModel(t testing.TB, name string, hidden int, seed uint64) nn.Model {
	t.Helper()
	m, err := lookup(t, name).New([]rune("ab"), nn.Options{Hidden: hidden}, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// jitter adds N(0, sd²) noise to every parameter, so that derivative checks
// do not run at the special point of the initialization (α = β = 1, zero
// biases).
func jitter(m nn.Model, sd float64, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 2))
	for i := range m.Params() {
		m.Params()[i] += sd * rng.NormFloat64()
	}
}

// cases are short strings over {a, b}, with one and three iterations per
// symbol and both labels.
func cases() []nntest.Case {
	var cs []nntest.Case
	for _, syms := range [][]int{{}, {0}, {1, 0}, {0, 1, 1, 0}} {
		for _, refine := range []int{1, 3} {
			cs = append(cs, nntest.Case{Syms: syms, Label: float64(len(syms) % 2), Refine: refine})
		}
	}
	return cs
}

func TestSpecs(t *testing.T) {
	var got []string
	for _, s := range Specs {
		got = append(got, s.Name)
		if s.HigherOrder != (s.Name == "second-order") {
			t.Errorf("%s: HigherOrder = %v", s.Name, s.HigherOrder)
		}
		if s.Description == "" || s.New == nil || s.Load == nil {
			t.Errorf("%s: incomplete spec", s.Name)
		}
	}
	if !slices.Equal(got, names) {
		t.Errorf("spec names %q, want %q", got, names)
	}
}

// TestSizes pins the default parameter counts for a 2-symbol alphabet
// (X = 3 inputs, H = 40 hidden units, J = 16 state neurons).
func TestSizes(t *testing.T) {
	want := map[string]int{
		"elman":         3*40 + 40*40 + 40 + 41,    // W U b v c
		"lstm":          4*40*(3+40+1) + 41,        // W U b (4 gates) v c
		"lstm-peephole": 4*40*(3+40+1) + 3*40 + 41, // + peepholes
		"gru":           3*40*(3+40+1) + 41,        // W U b (3 blocks) v c
		"mi-rnn":        40*(3+40+4) + 41,          // W U b α β₁ β₂ v c
		"mi-lstm":       4*40*(3+40+4) + 41,        //
		"mi-gru":        3*40*(3+40+4) + 41,        //
		"second-order":  3*16*16 + 16 + 17,         // W b v c
	}
	for _, name := range names {
		m := newModel(t, name, 0, 1)
		if n := len(m.Params()); n != want[name] {
			t.Errorf("%s: %d parameters, want %d", name, n, want[name])
		}
		if m.InputSize() != 3 || m.Kind() != name || string(m.Alphabet()) != "ab" {
			t.Errorf("%s: InputSize %d, Kind %q, Alphabet %q", name, m.InputSize(), m.Kind(), string(m.Alphabet()))
		}
	}
}

// TestDerivatives runs nntest.DerivativeChecks, each on models of its own
// hidden size.
func TestDerivatives(t *testing.T) {
	for k, chk := range nntest.DerivativeChecks(1e-10) {
		hidden := []int{3, 4}[k]
		for _, name := range names {
			t.Run(chk.Name+"/"+name, func(t *testing.T) {
				for i, c := range cases() {
					m := newModel(t, name, hidden, uint64(i))
					jitter(m, 0.5, uint64(i))
					chk.Run(t, m, c)
				}
			})
		}
	}
}

// TestBLASPathDerivatives runs the derivative checks with 16 and (adjoint
// and Jacobian only) the default number of units, where the dense kernels
// take the BLAS path.
func TestBLASPathDerivatives(t *testing.T) {
	c := nntest.Case{Syms: []int{0, 1, 1}, Label: 1, Refine: 2}
	for _, name := range names {
		m := newModel(t, name, 16, 3)
		jitter(m, 0.2, 3)
		nntest.CheckGradient(t, m, c, 1e-6)
		m = newModel(t, name, 0, 3)
		nntest.CheckAdjoint(t, m, c, 1e-10)
		nntest.CheckStateJacobian(t, m, c, 1e-6)
	}
}

// TestKernelPaths checks that the BLAS and the loop kernels agree.
func TestKernelPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	randv := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	const m, n = 7, 20
	a, x, y := randv(m*n), randv(n), randv(m)
	run := func(min int) (y1, x1, a1 []float64) {
		defer func(old int) { blasMin = old }(blasMin)
		blasMin = min
		y1, x1, a1 = make([]float64, m), slices.Clone(x), slices.Clone(a)
		mulVec(y1, a, x)
		mulTVecAdd(x1, a, y)
		outerAdd(a1, y, x)
		return
	}
	y1, x1, a1 := run(1 << 30)
	y2, x2, a2 := run(1)
	for _, p := range [][2][]float64{{y1, y2}, {x1, x2}, {a1, a2}} {
		for i := range p[0] {
			if math.Abs(p[0][i]-p[1][i]) > 1e-12 {
				t.Fatalf("loops %v, blas %v", p[0][i], p[1][i])
			}
		}
	}
}

// TestSetsNotAdds poisons s2 and ds2 with NaN: Step and StepJVP must set
// them, never read them.
func TestSetsNotAdds(t *testing.T) {
	for _, name := range names {
		m := newModel(t, name, 4, 5)
		n := m.StateSize()
		s, s2, ds, ds2 := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		m.Start(s, nil)
		rec := m.NewRecord()
		for _, l := range []int{0, 1, 2} {
			for i := range s2 {
				s2[i], ds2[i], ds[i] = math.NaN(), math.NaN(), 1
			}
			o := m.Step(rec, s, s2, l, true, true)
			m.StepJVP(rec, ds, ds2)
			for i := range s2 {
				if math.IsNaN(s2[i]) || math.IsNaN(ds2[i]) || math.IsNaN(o) {
					t.Fatalf("%s: Step or StepJVP read its output", name)
				}
			}
			s, s2 = s2, s
		}
	}
}

func TestLoadRoundTrip(t *testing.T) {
	for _, name := range names {
		m := newModel(t, name, 5, 9)
		jitter(m, 0.3, 9)
		m2, _ := nntest.Reload(t, lookup(t, name), m)
		if &m2.Params()[0] == &m.Params()[0] {
			t.Errorf("%s: Load aliases the caller's parameters", name)
		}
		syms := []int{0, 1, 1, 0, 1}
		if a, b := logits(m, syms, 2), logits(m2, syms, 2); !slices.Equal(a, b) {
			t.Errorf("%s: loaded model gives %v, original %v", name, b, a)
		}
		_, y1 := nn.NewClassifier(m, 2).Classify(syms)
		_, y2 := nn.NewClassifier(m2, 2).Classify(syms)
		if y1 != y2 {
			t.Errorf("%s: Classify %v after load, %v before", name, y2, y1)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	for _, name := range names {
		load := lookup(t, name).Load
		n := len(newModel(t, name, 3, 1).Params())
		for _, bad := range []struct {
			alphabet string
			cfg      string
			params   int
		}{
			{"ab", `{"hidden":3}`, n - 1},
			{"ab", `{"hidden":3}`, n + 1},
			{"ab", `{"hidden":0}`, n},
			{"ab", `{"hidden":-2}`, n},
			{"ab", `{"hidden":3,"extra":1}`, n},
			{"ab", `{"hidden":`, n},
			{"ab", ``, n},
			{"", `{"hidden":3}`, n},
			{"abc", `{"hidden":3}`, n},
		} {
			if _, err := load([]rune(bad.alphabet), json.RawMessage(bad.cfg), make([]float64, bad.params)); err == nil {
				t.Errorf("%s: Load(%q, %s, %d params) accepted", name, bad.alphabet, bad.cfg, bad.params)
			}
		}
	}
}

func TestNewErrorsAndDeterminism(t *testing.T) {
	for _, name := range names {
		s := lookup(t, name)
		if _, err := s.New([]rune("ab"), nn.Options{}, nil); err == nil {
			t.Errorf("%s: New accepted a nil rng", name)
		}
		if _, err := s.New([]rune("ab"), nn.Options{Hidden: -1}, rand.New(rand.NewPCG(1, 1))); err == nil {
			t.Errorf("%s: New accepted hidden -1", name)
		}
		if _, err := s.New(nil, nn.Options{}, rand.New(rand.NewPCG(1, 1))); err == nil {
			t.Errorf("%s: New accepted an empty alphabet", name)
		}
		a, b, c := newModel(t, name, 0, 4), newModel(t, name, 0, 4), newModel(t, name, 0, 5)
		if !slices.Equal(a.Params(), b.Params()) || slices.Equal(a.Params(), c.Params()) {
			t.Errorf("%s: initialization is not a function of the seed", name)
		}
	}
}

// TestInit checks the documented initialization: bounds of the weights,
// zero biases but the LSTM forget gate's, unit MI gains, e_0 start.
func TestInit(t *testing.T) {
	for _, name := range names {
		m := newModel(t, name, 0, 6)
		b := baseOf(m)
		y, p := b.lay, b.p
		r := 1 / math.Sqrt(float64(y.X+y.H))
		if y.cell == cellSecond {
			r = 1
		}
		for _, v := range [][]float64{p.W, p.U, p.P} {
			for _, w := range v {
				if math.Abs(w) > r {
					t.Fatalf("%s: weight %v outside ±%v", name, w, r)
				}
			}
		}
		for i, v := range p.B {
			want := 0.0
			if y.cell == cellLSTM && i >= y.H && i < 2*y.H {
				want = 1
			}
			if v != want {
				t.Fatalf("%s: bias %d = %v, want %v", name, i, v, want)
			}
		}
		for _, v := range slices.Concat(p.Alpha, p.Beta1, p.Beta2) {
			if v != 1 {
				t.Fatalf("%s: MI gain %v, want 1", name, v)
			}
		}
		s := make([]float64, m.StateSize())
		for i := range s {
			s[i] = 7
		}
		m.Start(s, nil)
		for i, v := range s {
			want := 0.0
			if y.cell == cellSecond && i == 0 {
				want = 1
			}
			if v != want {
				t.Fatalf("%s: initial state %v", name, s)
			}
		}
	}
}

func baseOf(m nn.Model) *base {
	switch m := m.(type) {
	case *Elman:
		return &m.base
	case *LSTM:
		return &m.base
	case *GRU:
		return &m.base
	case *SecondOrder:
		return &m.base
	}
	panic("unknown model")
}

func TestNoAllocs(t *testing.T) {
	for _, name := range names {
		for _, hidden := range []int{3, 0} {
			m := newModel(t, name, hidden, 7)
			n := m.StateSize()
			s, s2, ds, ds2 := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
			grad := make([]float64, len(m.Params()))
			rec := m.NewRecord()
			m.Start(s, nil)
			for i := range ds2 {
				ds2[i] = 0.1
			}
			for what, f := range map[string]func(){
				"Start":   func() { m.Start(s, nil) },
				"Step":    func() { m.Step(rec, s, s2, 1, true, true) },
				"StepVJP": func() { m.StepVJP(rec, ds2, ds, grad) },
				"StepJVP": func() { m.StepJVP(rec, ds, ds2) },
				"OutVJP":  func() { m.OutVJP(rec, 0.5, ds2, grad) },
			} {
				if a := testing.AllocsPerRun(20, f); a != 0 {
					t.Errorf("%s (hidden %d): %s allocates %v times", name, hidden, what, a)
				}
			}
		}
	}
}

// logits runs syms and the end marker with refine iterations per symbol and
// returns every iteration's logit.
func logits(m nn.Net, syms []int, refine int) []float64 {
	n := m.StateSize()
	s, s2 := make([]float64, n), make([]float64, n)
	rec := m.NewRecord()
	m.Start(s, nil)
	var out []float64
	for _, l := range append(slices.Clone(syms), m.InputSize()-1) {
		for it := 0; it < refine; it++ {
			out = append(out, m.Step(rec, s, s2, l, it == 0, it == refine-1))
			s, s2 = s2, s
		}
	}
	return out
}
