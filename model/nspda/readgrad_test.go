package nspda

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/nn/nntest"
	"github.com/nspda/nspda/stack"
)

// TestNoReadGradGradient: with NoReadGrad the backward pass is the exact
// gradient of the relaxed loss in which the pending read does not depend on
// the decisive action neuron (g = 0), and nothing else changes.
func TestNoReadGradGradient(t *testing.T) {
	if moves, _ := checkNetGradient(t, true, false); moves < 50 {
		t.Errorf("the strings moved the stack %d times; the test needs many", moves)
	}
}

// TestNoReadGradAdjoint: with NoReadGrad, StepJVP and StepVJP remain each
// other's transposes (UORO uses one, BPTT the other).
func TestNoReadGradAdjoint(t *testing.T) {
	checkAdjointWith(t, func(n *Net) { n.NoReadGrad = true })
}

// checkAdjointWith checks StepJVP against StepVJP on busy nets of both
// orders, with and without refinement, each set up by set.
func checkAdjointWith(t *testing.T, set func(n *Net)) {
	for order, seed := range orderSeeds(1, 5) {
		n := NewNet(busyModel(t, order, 3, 4, 3, seed))
		set(n)
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

// TestTwoSidedGradient: with TwoSided the backward pass is the exact
// gradient of the relaxed loss whose pending read moves along
// g = e(x) − r_below at every action.
func TestTwoSidedGradient(t *testing.T) {
	if moves, noops := checkNetGradient(t, false, true); moves < 50 || noops < 50 {
		t.Errorf("the strings moved the stack %d times and left it %d times; the test needs many of both", moves, noops)
	}
}

// TestTwoSidedAdjoint: with TwoSided, StepJVP and StepVJP remain each
// other's transposes.
func TestTwoSidedAdjoint(t *testing.T) {
	checkAdjointWith(t, func(n *Net) { n.TwoSided = true })
	checkAdjointWith(t, func(n *Net) { n.SetTwoSided(true) }) // a start's switch
}

// TestTwoSidedRead: the read's derivative g by the decisive action neuron,
// one-sided and two-sided, at evaluation-mode reads, where a run of a's
// (symbol 0) is on the stack. A pop inside the run leaves the read as it
// was, so its side is 0; the two-sided g is e(x) − r_below at every
// action, whatever its side.
func TestTwoSidedRead(t *testing.T) {
	const L = 3
	R := L + 1
	read := func(top int, popped ...int) []float64 { // the read with top on top (−1: ⊥), and popped
		r := make([]float64, R)
		for k := range r {
			r[k] = stack.EvalReads.Other
		}
		for _, p := range popped {
			r[p] = stack.EvalReads.Popped
		}
		if top < 0 {
			top = L
		}
		r[top] = stack.EvalReads.Top
		return r
	}
	diff := func(a, b []float64) []float64 {
		d := make([]float64, len(a))
		for k := range a {
			d[k] = a[k] - b[k]
		}
		return d
	}
	for _, c := range []struct {
		name     string
		stack    []int // bottom..top
		op       grammar.Op
		v        float64 // the decisive neuron's pre-activation
		l        int     // the input
		one, two []float64
	}{
		// aa, pop on c: the pop side r − r_below is 0; both sides give e(c) − e(a).
		{"run/pop", []int{0, 0}, grammar.Pop, -1, 2, make([]float64, R), diff(read(2), read(0))},
		// aa, push of a: the push side e(a) − r is 0, and so is the two-sided g.
		{"run/push-same", []int{0, 0}, grammar.Push, 1, 0, make([]float64, R), make([]float64, R)},
		// a, a no-op on the pop side on c: r − r_below, r_below showing ⊥
		// on top and the a popped; both: e(c) − r_below.
		{"one/noop", []int{0}, grammar.Noop, -0.1, 2, diff(read(0), read(-1, 0)), diff(read(2), read(-1, 0))},
		// a, push of b: e(b) − e(a); both: e(b) − r_below.
		{"one/push", []int{0}, grammar.Push, 1, 1, diff(read(1), read(0)), diff(read(1), read(-1, 0))},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, two := range []bool{false, true} {
				var st stack.Digital
				for _, s := range c.stack {
					st.Apply(grammar.Push, s)
				}
				r := read(c.stack[len(c.stack)-1])
				base, g, rn := make([]float64, R), make([]float64, R), make([]float64, R)
				move(&st, c.op, c.v, c.l, nil, r, base, g, rn, two)
				want := c.one
				if two {
					want = c.two
				}
				for k := range g {
					if math.Abs(g[k]-want[k]) > 1e-15 {
						t.Fatalf("two-sided %v: g = %v, want %v", two, g, want)
					}
				}
			}
		})
	}
}

// TestSetTwoSided: a start's switch (SetTwoSided, train.TwoSider) gives
// the TwoSided option's gradient when on and the net's own when off, and
// the two differ.
func TestSetTwoSided(t *testing.T) {
	for order, seed := range orderSeeds(1, 3) {
		m := busyModel(t, order, 3, 4, 3, seed)
		c := nntest.Case{Syms: randomSyms(rand.New(rand.NewPCG(seed, 3)), 3, 12), Label: 1, Refine: 1, Seed: seed}
		grad := func(set func(n *Net)) []float64 {
			n := NewNet(m)
			set(n)
			g := make([]float64, len(m.Params))
			nntest.Gradient(n, c, g)
			return g
		}
		option := grad(func(n *Net) { n.TwoSided = true })
		on := grad(func(n *Net) { n.SetTwoSided(true) })
		off := grad(func(n *Net) { n.SetTwoSided(true); n.SetTwoSided(false) })
		plain := grad(func(*Net) {})
		differ := false
		for i := range option {
			if on[i] != option[i] || off[i] != plain[i] {
				t.Fatalf("order %d, parameter %d: switch on %g, option %g; off %g, plain %g", order, i, on[i], option[i], off[i], plain[i])
			}
			differ = differ || option[i] != plain[i]
		}
		if !differ {
			t.Errorf("order %d: the two-sided gradient is the one-sided one: the test checks nothing", order)
		}
	}
}
