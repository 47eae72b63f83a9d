package stackrnn

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/nn/nntest"
)

var memories = []Memory{Stack, List}

// small returns a network with 4 hidden units and 2 memories over {a,b},
// sized for strings of maxLen symbols, with N(0,1) weights so that every
// nonlinearity is exercised.
func small(t testing.TB, mem Memory, cfg Config, maxLen int, seed uint64) *Model {
	t.Helper()
	if cfg.Hidden == 0 {
		cfg.Hidden, cfg.Stacks = 4, 2
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	m, err := New(mem, []rune("ab"), cfg, rng)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.params {
		m.params[i] = rng.NormFloat64()
	}
	m.Reserve(maxLen)
	return m
}

// cases are short strings with both labels, one and three iterations per
// symbol, in evaluation and training mode.
func cases() []nntest.Case {
	var cs []nntest.Case
	for _, syms := range [][]int{{0, 0, 1, 1}, {1, 0, 1}, {}} {
		for _, refine := range []int{1, 3} {
			for label := range 2 {
				cs = append(cs, nntest.Case{Syms: syms, Label: float64(label), Refine: refine, Seed: uint64(label * 5)})
			}
		}
	}
	return cs
}

func configs() []Config {
	return []Config{{}, {Hidden: 4, Stacks: 2, Recurrent: true}, {Hidden: 3, Stacks: 2, Rounding: true}}
}

// TestDerivatives runs nntest.DerivativeChecks, each on models of its own
// seeds.
func TestDerivatives(t *testing.T) {
	for k, chk := range nntest.DerivativeChecks(1e-9) {
		seed := []uint64{1, 10}[k]
		for _, mem := range memories {
			for ci, cfg := range configs() {
				m := small(t, mem, cfg, 4, uint64(ci)+seed)
				for _, c := range cases() {
					chk.Run(t, m, c)
				}
			}
		}
	}
}

// TestMovingJacobian checks StepJVP against finite differences at iterations
// that move the memories (nntest.CheckStateJacobian probes the others only).
func TestMovingJacobian(t *testing.T) {
	for _, mem := range memories {
		for ci, cfg := range configs() {
			m := small(t, mem, cfg, 4, uint64(ci+20))
			n := m.StateSize()
			s, s2 := make([]float64, n), make([]float64, n)
			m.Start(s, rand.New(rand.NewPCG(1, 1)))
			rec, probe := m.NewRecord(), m.NewRecord()
			for _, l := range []int{0, 1, 0, 0} {
				m.Step(rec, s, s2, l, true, true)
				redo := func(s, s2 []float64) { m.Step(probe, s, s2, l, true, true) }
				if err := nntest.StepJacobianError(m, rec, s, redo, 1e-6); err != nil {
					t.Fatalf("%v %+v: %v", mem, cfg, err)
				}
				s, s2 = s2, s
			}
		}
	}
}

// TestMemoryMoves checks the actions on one memory against their
// definitions (baselines.md 2.1, 2.4).
func TestMemoryMoves(t *testing.T) {
	s := []float64{1, 2, 3, 4, 5}
	const d = 9
	for _, tc := range []struct {
		name string
		acts []action
		c    int
		want []float64
	}{
		{"stack push", stackActions(5), 0, []float64{9, 1, 2, 3, 4}},
		{"stack pop", stackActions(5), 1, []float64{2, 3, 4, 5, -1}},
		{"stack no-op", stackActions(5), 2, []float64{1, 2, 3, 4, 5}},
		{"list insert", listActions(5, 2), 0, []float64{2, 3, 9, 4, 5}},
		{"list left", listActions(5, 2), 1, []float64{-1, 1, 2, 3, 4}},
		{"list right", listActions(5, 2), 2, []float64{2, 3, 4, 5, -1}},
		{"list no-op", listActions(5, 2), 3, []float64{1, 2, 3, 4, 5}},
	} {
		a := make([]float64, len(tc.acts))
		a[tc.c] = 1
		got := make([]float64, 5)
		update(tc.acts, got, s, a, d)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestReserveExact checks that memories sized by Reserve give the same
// outputs as much deeper ones, and that StateSize follows.
func TestReserveExact(t *testing.T) {
	syms := []int{0, 0, 0, 1, 0, 0}
	for _, mem := range memories {
		m := small(t, mem, Config{}, len(syms), 3)
		if want := 4 + 2*m.Depth(); m.StateSize() != want {
			t.Fatalf("%v: StateSize %d, want %d", mem, m.StateSize(), want)
		}
		c := nntest.Case{Syms: syms, Label: 1, Refine: 2, Seed: 3}
		a := nntest.Loss(m, c)
		m.Reserve(50)
		if b := nntest.Loss(m, c); a != b {
			t.Errorf("%v: loss %v with depth for %d symbols, %v with depth for 50", mem, a, len(syms), b)
		}
	}
}

// TestRounding checks that with Rounding, evaluation-mode actions are one-hot
// and training-mode actions are not.
func TestRounding(t *testing.T) {
	for _, mem := range memories {
		m := small(t, mem, Config{Hidden: 4, Stacks: 2, Rounding: true}, 4, 4)
		for _, rng := range []*rand.Rand{nil, rand.New(rand.NewPCG(1, 2))} {
			s, s2 := make([]float64, m.StateSize()), make([]float64, m.StateSize())
			m.Start(s, rng)
			rec := m.NewRecord().(*record)
			for _, l := range []int{0, 1, 1} {
				m.Step(rec, s, s2, l, true, true)
				s, s2 = s2, s
				ones := 0
				for _, v := range rec.a {
					switch v {
					case 1:
						ones++
					case 0:
					default:
						if rng == nil {
							t.Fatalf("%v: evaluation action %v is not 0 or 1", mem, rec.a)
						}
					}
				}
				if rng == nil && ones != m.cfg.Stacks {
					t.Fatalf("%v: evaluation actions %v are not one-hot", mem, rec.a)
				}
				if rng != nil && ones > 0 {
					t.Fatalf("%v: training actions %v are rounded", mem, rec.a)
				}
			}
		}
	}
}

func TestLoadRoundTrip(t *testing.T) {
	for _, spec := range Specs {
		m, err := spec.New([]rune("abc"), nn.Options{Hidden: 5, Own: &Options{Stacks: 3, Rounding: true}}, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if m.Kind() != spec.Name || spec.HigherOrder || string(m.Alphabet()) != "abc" {
			t.Errorf("spec %s: kind %s, higher order %v, alphabet %q", spec.Name, m.Kind(), spec.HigherOrder, string(m.Alphabet()))
		}
		nntest.CheckReload(t, spec, m, nntest.Case{Syms: []int{0, 2, 1}, Label: 1, Refine: 2})
	}
}

func TestLoadErrors(t *testing.T) {
	load := func(alphabet []rune, config json.RawMessage, params []float64) (*Model, error) {
		return Load(Stack, alphabet, config, params)
	}
	const n = 3*2 + 4 + 2*2 + 1*4*2 + 2 + 1
	nntest.CheckLoadErrors(t, load, `{"hidden":2,"stacks":1,"rounding":false,"recurrent":true}`, n,
		nntest.LoadCase{Name: "bad json", Alphabet: "ab", Config: `{"hidden":`, Params: make([]float64, n)},
		nntest.LoadCase{Name: "unknown field", Alphabet: "ab", Config: `{"hidden":2,"stacks":1,"depth":3}`, Params: make([]float64, n)},
		nntest.LoadCase{Name: "no hidden units", Alphabet: "ab", Config: `{"hidden":0,"stacks":1}`},
		nntest.LoadCase{Name: "no stacks", Alphabet: "ab", Config: `{"hidden":2,"stacks":0}`},
	)
	if _, err := New(Stack, []rune("ab"), Config{Hidden: 2, Stacks: 1}, nil); err == nil {
		t.Error("New accepted a nil rng")
	}
}

func TestDeterministic(t *testing.T) {
	for _, spec := range Specs {
		a, _ := spec.New([]rune("ab"), nn.Options{}, rand.New(rand.NewPCG(5, 5)))
		b, _ := spec.New([]rune("ab"), nn.Options{}, rand.New(rand.NewPCG(5, 5)))
		if !slices.Equal(a.Params(), b.Params()) {
			t.Errorf("%s: same seed, different parameters", spec.Name)
		}
	}
}

func TestDefaultSizes(t *testing.T) {
	for _, tc := range []struct {
		spec        nn.Spec
		params, cfg int
	}{
		// U 3·40 + P 40·(10·2) + C 10·4·40 + Wo 40 + Bo 1
		{Specs[0], 3*40 + 40*20 + 10*4*40 + 40 + 1, 10},
		// U 3·40 + P 40·(5·2) + C 5·5·40 + Wo 40 + Bo 1
		{Specs[1], 3*40 + 40*10 + 5*5*40 + 40 + 1, 5},
	} {
		m, err := tc.spec.New([]rune("ab"), nn.Options{}, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(m.Params()); got != tc.params {
			t.Errorf("%s: %d parameters, want %d", tc.spec.Name, got, tc.params)
		}
		if cfg := m.Config().(Config); cfg.Hidden != 40 || cfg.Stacks != tc.cfg || cfg.Recurrent {
			t.Errorf("%s: default config %+v", tc.spec.Name, cfg)
		}
	}
}

func TestNoAllocs(t *testing.T) {
	syms := []int{0, 1, 1, 0, 0, 1}
	for _, mem := range memories {
		for ci, cfg := range configs() {
			m := small(t, mem, cfg, len(syms), uint64(ci))
			b := nntest.NewPass(m, len(syms))
			b.Run(syms, 1)
			if n := testing.AllocsPerRun(20, func() { b.Run(syms, 1) }); n != 0 {
				t.Errorf("%v %+v: %v allocations per string", mem, cfg, n)
			}
		}
	}
}

// TestLearn trains a default-size network with SGD (lr 0.1, gradient clipped
// at 13) for 300 string presentations on toySet. The loss must at least halve;
// to get the end marker right (the hidden state sees only $ and the memory
// there) the network has to use its memory.
func TestLearn(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	for _, spec := range Specs {
		m, err := spec.New([]rune("ab"), nn.Options{}, rand.New(rand.NewPCG(3, 3)))
		if err != nil {
			t.Fatal(err)
		}
		first, last := learn(m, 300)
		t.Logf("%s: loss %.3f -> %.3f", spec.Name, first, last)
		if last > first/2 {
			t.Errorf("%s: loss went from %.3f to %.3f, not halved", spec.Name, first, last)
		}
	}
}

// toySet is the learning tests' data: aⁿ (label 1) and bⁿ (label 0) for
// n = 1..4. The label is visible in every input but the end marker, where it
// must be recalled from memory.
func toySet() []nntest.Case {
	var cs []nntest.Case
	for n := 1; n <= 4; n++ {
		for sym := range 2 {
			cs = append(cs, nntest.Case{Syms: slices.Repeat([]int{sym}, n), Label: float64(1 - sym), Refine: 1})
		}
	}
	return cs
}

// learn runs SGD over the toy set for the given number of string presentations
// and returns the mean loss on it before and after.
func learn(net nn.Model, steps int) (first, last float64) {
	set := toySet()
	mean := func() float64 {
		s := 0.0
		for _, c := range set {
			s += nntest.Loss(net, c)
		}
		return s / float64(len(set))
	}
	if r, ok := net.(nn.Reserver); ok {
		r.Reserve(4)
	}
	first = mean()
	p := net.Params()
	grad := make([]float64, len(p))
	rng := rand.New(rand.NewPCG(9, 9))
	for range steps {
		clear(grad)
		nntest.Gradient(net, set[rng.IntN(len(set))], grad)
		for i, g := range grad {
			p[i] -= 0.1 * max(-13, min(13, g))
		}
	}
	return first, mean()
}

// TestMoveLoopsExact checks apply, applyT and dot, which split a move's
// range into the cells read inside and outside the memory, against one loop
// with a bounds test per cell: the same values, bit for bit, for every range
// and shift of a small memory.
func TestMoveLoopsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const n = 6
	vec := func() []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	for lo := 0; lo <= n; lo++ {
		for hi := lo; hi <= n; hi++ {
			for k := -n - 1; k <= n+1; k++ {
				mv := move{lo, hi, k}
				src, w, a := vec(), vec(), rng.NormFloat64()
				got := vec()
				want := slices.Clone(got)
				mv.apply(got, src, a, Empty)
				for i := lo; i < hi; i++ {
					v := Empty
					if j := i + k; j >= 0 && j < n {
						v = src[j]
					}
					want[i] += a * v
				}
				gotT := vec()
				wantT := slices.Clone(gotT)
				mv.applyT(gotT, w, a)
				s := 0.0
				for i := lo; i < hi; i++ {
					if j := i + k; j >= 0 && j < n {
						wantT[j] += a * w[i]
						s += w[i] * src[j]
					} else {
						s += w[i] * Empty
					}
				}
				if !slices.Equal(got, want) || !slices.Equal(gotT, wantT) || mv.dot(w, src) != s {
					t.Fatalf("move %+v: apply %v want %v, applyT %v want %v, dot %v want %v", mv, got, want, gotT, wantT, mv.dot(w, src), s)
				}
			}
		}
	}
}
