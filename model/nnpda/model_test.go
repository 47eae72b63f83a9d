package nnpda

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/nn/nntest"
)

// small returns a network with 3 state neurons over {a,b} and N(0,2²)
// weights (large enough for decisive pushes and pops), sized for strings of
// maxLen symbols.
func small(t testing.TB, order int, maxLen int, seed uint64) *Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 2))
	m, err := New([]rune("ab"), Config{Order: order, Hidden: 3, Epsilon: DefaultEpsilon}, rng)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.params {
		m.params[i] = 2 * rng.NormFloat64()
	}
	m.Reserve(maxLen)
	return m
}

// coverage is what one forward pass did to the stack.
type coverage struct {
	margin                    float64 // distance to the nearest non-smooth point
	push, pop, multiPop, noop int
	full, partial             int // reads with a full window, and with ℓ < 1 but not empty
}

func (c *coverage) add(o coverage) {
	c.margin = min(c.margin, o.margin)
	c.push += o.push
	c.pop += o.pop
	c.multiPop += o.multiPop
	c.noop += o.noop
	c.full += o.full
	c.partial += o.partial
}

// cover runs c's forward pass and reports what the stack did.
func cover(m *Model, c nntest.Case) coverage {
	n := m.StateSize()
	s, s2 := make([]float64, n), make([]float64, n)
	rec := m.NewRecord().(*record)
	m.Start(s, nil)
	cv := coverage{margin: math.Inf(1)}
	for _, l := range append(slices.Clone(c.Syms), m.l) {
		for it := range c.Refine {
			m.Step(rec, s, s2, l, it == 0, it == c.Refine-1)
			s, s2 = s2, s
			cv.margin = min(cv.margin, rec.margin)
			switch rec.op {
			case opPush:
				cv.push++
			case opPop:
				cv.pop++
				if rec.n0-max(rec.b, 0) > 1 {
					cv.multiPop++
				}
			case opNoop:
				cv.noop++
			}
			if rec.full {
				cv.full++
			} else if rec.n > 0 {
				cv.partial++
			}
		}
	}
	return cv
}

// cases are strings with both labels, one and three iterations per symbol.
func cases() []nntest.Case {
	var cs []nntest.Case
	for _, syms := range [][]int{{0, 0, 1, 0, 1, 1, 0}, {1, 1, 0, 1, 0, 0}, {0, 1}, {}} {
		for _, refine := range []int{1, 3} {
			for label := range 2 {
				cs = append(cs, nntest.Case{Syms: syms, Label: float64(label), Refine: refine})
			}
		}
	}
	return cs
}

// smooth returns a network of the given order whose forward passes over
// cases() stay at least 1e-4 away from every kink and jump of the stack,
// trying seeds from seed on, and checks that together they push, pop (also
// several segments at once), do nothing, and read full and partly filled
// windows.
func smooth(t *testing.T, order int, seed uint64) *Model {
	t.Helper()
	for ; ; seed++ {
		m := small(t, order, 7, seed)
		total := coverage{margin: math.Inf(1)}
		for _, c := range cases() {
			total.add(cover(m, c))
		}
		if total.margin < 1e-4 {
			continue
		}
		if total.push == 0 || total.pop == 0 || total.multiPop == 0 || total.full == 0 || total.partial == 0 {
			continue
		}
		t.Logf("order %d: seed %d: %+v", order, seed, total)
		return m
	}
}

// TestDerivatives runs nntest.DerivativeChecks, each on models found from
// its own first seed.
func TestDerivatives(t *testing.T) {
	for k, chk := range nntest.DerivativeChecks(1e-9) {
		seed := []uint64{1, 100}[k]
		for _, order := range []int{3, 2} {
			m := smooth(t, order, seed)
			for _, c := range cases() {
				chk.Run(t, m, c)
			}
		}
	}
}

// TestMovingJacobian checks StepJVP against finite differences at iterations
// that move the stack (nntest.CheckStateJacobian probes the others only),
// restoring the discrete memory around each probe.
func TestMovingJacobian(t *testing.T) {
	for _, order := range []int{3, 2} {
		m := smooth(t, order, 200)
		for _, c := range cases()[:4] {
			n := m.StateSize()
			s, s2 := make([]float64, n), make([]float64, n)
			m.Start(s, nil)
			rec, probe := m.NewRecord(), m.NewRecord()
			type memory struct {
				n   int
				sym []int
			}
			save := func() memory { return memory{m.n, slices.Clone(m.sym)} }
			restore := func(mem memory) { m.n = mem.n; copy(m.sym, mem.sym) }
			for _, l := range append(slices.Clone(c.Syms), m.l) {
				before := save()
				m.Step(rec, s, s2, l, true, true)
				after := save()
				redo := func(s, s2 []float64) {
					restore(before)
					m.Step(probe, s, s2, l, true, true)
				}
				if err := nntest.StepJacobianError(m, rec, s, redo, 1e-6); err != nil {
					t.Fatalf("order %d, input %d (%v): %v", order, l, rec.(*record).op, err)
				}
				restore(after)
				s, s2 = s2, s
			}
		}
	}
}

// TestStackExample replays S1's worked example (baselines.md 1.3): the stack
// a:.32, a:.2, b:.7, a:.4 (bottom first) reads (a .4, b .6, ⊥ 0); popping .86
// leaves a:.32, a:.2, b:.24, which reads (a .52, b .24, ⊥ .24).
func TestStackExample(t *testing.T) {
	m := small(t, 3, 5, 1)
	m.n = 4
	copy(m.sym, []int{0, 0, 1, 0})
	lens := []float64{.32, .2, .7, .4, 0, 0, 0}
	r := m.NewRecord().(*record)
	rd := make([]float64, 3)
	near := func(got, want []float64) bool {
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				return false
			}
		}
		return len(got) == len(want)
	}
	m.read(r, rd, lens)
	if !near(rd, []float64{.4, .6, 0}) || !r.full || r.w != 2 {
		t.Fatalf("read %v (full %v, w %d), want [.4 .6 0], full, w 2", rd, r.full, r.w)
	}
	lens2 := slices.Clone(lens)
	r.a, r.l = -.86, 0
	m.act(r, lens, lens2)
	if !near(lens2, []float64{.32, .2, .24, 0, 0, 0, 0}) || m.n != 3 || r.b != 2 {
		t.Fatalf("after popping .86: lengths %v, n %d, b %d", lens2, m.n, r.b)
	}
	m.read(r, rd, lens2)
	if !near(rd, []float64{.52, .24, .24}) || r.full {
		t.Fatalf("read %v (full %v), want [.52 .24 .24], not full", rd, r.full)
	}
	// Popping more than ℓ empties the stack; the rest does nothing.
	lens3 := slices.Clone(lens2)
	r.a = -.9
	m.act(r, lens2, lens3)
	if m.n != 0 || r.b != -1 || !near(lens3, make([]float64, 7)) {
		t.Fatalf("after popping .9 from .76: lengths %v, n %d, b %d", lens3, m.n, r.b)
	}
	// A push adds a segment of the input symbol; |a| ≤ ε does nothing.
	r.a, r.l = .5, 1
	m.act(r, lens3, lens3)
	r.a = -DefaultEpsilon / 2
	m.act(r, lens3, lens3)
	if m.n != 1 || m.sym[0] != 1 || lens3[0] != .5 || r.op != opNoop {
		t.Fatalf("after pushing (b, .5) and a no-op: lengths %v, n %d, sym %v, op %v", lens3, m.n, m.sym[:m.n], r.op)
	}
}

// TestEndMarker checks that the stack never moves at the end marker or at
// an iteration that is not a symbol's last.
func TestEndMarker(t *testing.T) {
	m := small(t, 3, 5, 3)
	s, s2 := make([]float64, m.StateSize()), make([]float64, m.StateSize())
	m.Start(s, nil)
	rec := m.NewRecord().(*record)
	for _, tc := range []struct {
		l    int
		last bool
	}{{0, false}, {1, false}, {m.l, true}, {m.l, false}} {
		m.Step(rec, s, s2, tc.l, tc.last, tc.last)
		if rec.op != opNone || m.n != 0 || !slices.Equal(s[m.cfg.Hidden:], s2[m.cfg.Hidden:]) {
			t.Fatalf("input %d, last %v: the stack moved (%v)", tc.l, tc.last, rec.op)
		}
	}
}

func TestReserve(t *testing.T) {
	m := small(t, 3, 4, 4)
	if m.StateSize() != 3+6 {
		t.Fatalf("StateSize %d after Reserve(4), want 9", m.StateSize())
	}
	c := nntest.Case{Syms: []int{0, 0, 1, 0}, Label: 1, Refine: 2}
	a := nntest.Loss(m, c)
	m.Reserve(40)
	if b := nntest.Loss(m, c); a != b || m.StateSize() != 3+42 {
		t.Errorf("loss %v with 6 slots, %v with 42; StateSize %d", a, b, m.StateSize())
	}
}

func TestLoadRoundTrip(t *testing.T) {
	for _, order := range []int{3, 2} {
		spec := Specs[0]
		m, err := spec.New([]rune("abc"), nn.Options{Hidden: 4, Own: &Options{Order: order}}, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if m.Kind() != "nnpda" || !spec.HigherOrder || spec.Name != "nnpda" || string(m.Alphabet()) != "abc" {
			t.Errorf("spec %s: kind %s, higher order %v, alphabet %q", spec.Name, m.Kind(), spec.HigherOrder, string(m.Alphabet()))
		}
		nntest.CheckReload(t, spec, m, nntest.Case{Syms: []int{0, 2, 1, 1}, Label: 1, Refine: 2})
	}
}

func TestLoadErrors(t *testing.T) {
	// Ws 2·2·6 + Bs 2 + Wa 2·6 + Ba + Wo 2 + Bo
	const n = 24 + 2 + 12 + 1 + 2 + 1
	nntest.CheckLoadErrors(t, Load, `{"order":2,"hidden":2,"epsilon":0.01}`, n,
		nntest.LoadCase{Name: "bad json", Alphabet: "ab", Config: `{"order":`, Params: make([]float64, n)},
		nntest.LoadCase{Name: "unknown field", Alphabet: "ab", Config: `{"order":3,"hidden":2,"epsilon":0.01,"stacks":2}`, Params: make([]float64, n)},
		nntest.LoadCase{Name: "order 4", Alphabet: "ab", Config: `{"order":4,"hidden":2,"epsilon":0.01}`},
		nntest.LoadCase{Name: "no state neurons", Alphabet: "ab", Config: `{"order":3,"hidden":0,"epsilon":0.01}`},
		nntest.LoadCase{Name: "negative epsilon", Alphabet: "ab", Config: `{"order":3,"hidden":2,"epsilon":-0.1}`},
	)
	if _, err := New([]rune("ab"), DefaultConfig(nn.Options{}), nil); err == nil {
		t.Error("New accepted a nil rng")
	}
}

func TestDefaults(t *testing.T) {
	a, err := Specs[0].New([]rune("ab"), nn.Options{}, rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Specs[0].New([]rune("ab"), nn.Options{}, rand.New(rand.NewPCG(5, 5)))
	if !slices.Equal(a.Params(), b.Params()) {
		t.Error("same seed, different parameters")
	}
	for _, p := range a.Params() {
		if p < -1 || p > 1 {
			t.Fatalf("initial parameter %v outside [−1,1]", p)
		}
	}
	// Ws 3·8·8·3 + Bs 8 + Wa 3·8·3 + Ba + Wo 8 + Bo
	if got, want := len(a.Params()), 576+8+72+1+8+1; got != want {
		t.Errorf("%d parameters, want %d", got, want)
	}
	if cfg := a.Config().(Config); cfg != (Config{Order: 3, Hidden: 8, Epsilon: 0.01}) {
		t.Errorf("default config %+v", cfg)
	}
}

func TestNoAllocs(t *testing.T) {
	syms := []int{0, 1, 1, 0, 0, 1, 1, 1}
	for _, order := range []int{3, 2} {
		m := small(t, order, len(syms), 7)
		b := nntest.NewPass(m, len(syms))
		b.Run(syms, 1)
		if n := testing.AllocsPerRun(20, func() { b.Run(syms, 1) }); n != 0 {
			t.Errorf("order %d: %v allocations per string", order, n)
		}
	}
}

// TestLearn trains a default-size network with SGD (lr 0.1, gradient clipped
// at 13) for 300 string presentations on aⁿ (label 1) and bⁿ (label 0),
// n = 1..4; the loss must at least halve.
func TestLearn(t *testing.T) {
	for _, order := range []int{3, 2} {
		m, err := Specs[0].New([]rune("ab"), nn.Options{Own: &Options{Order: order}}, rand.New(rand.NewPCG(3, 3)))
		if err != nil {
			t.Fatal(err)
		}
		m.(nn.Reserver).Reserve(4)
		var set []nntest.Case
		for n := 1; n <= 4; n++ {
			for sym := range 2 {
				set = append(set, nntest.Case{Syms: slices.Repeat([]int{sym}, n), Label: float64(1 - sym), Refine: 1})
			}
		}
		mean := func() float64 {
			s := 0.0
			for _, c := range set {
				s += nntest.Loss(m, c)
			}
			return s / float64(len(set))
		}
		first := mean()
		p := m.Params()
		grad := make([]float64, len(p))
		rng := rand.New(rand.NewPCG(9, 9))
		for range 300 {
			clear(grad)
			nntest.Gradient(m, set[rng.IntN(len(set))], grad)
			for i, g := range grad {
				p[i] -= 0.1 * max(-13, min(13, g))
			}
		}
		last := mean()
		t.Logf("order %d: loss %.3f -> %.3f", order, first, last)
		if last > first/2 {
			t.Errorf("order %d: loss went from %.3f to %.3f, not halved", order, first, last)
		}
	}
}
