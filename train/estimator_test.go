package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/nn/nntest"
)

// testNet returns a random NSPDA whose actions mix pushes, pops and no-ops.
func testNet(t testing.TB, order nspda.Order, L, J int, seed uint64) *nspda.Net {
	t.Helper()
	m, err := nspda.New(nspda.Shape{Order: order, L: L, J: J, A: L}, []rune("abcd")[:L])
	if err != nil {
		t.Fatal(err)
	}
	nntest.FillNormal(m.Params, seed, 3)
	for i := range m.Wa {
		m.Wa[i] *= 0.3
	}
	return nspda.NewNet(m)
}

func randomExample(rng *rand.Rand, L, n int, hints bool) Example {
	ex := Example{Syms: make([]int, n), Label: float64(rng.IntN(2))}
	for i := range ex.Syms {
		ex.Syms[i] = rng.IntN(L)
	}
	if hints {
		ex.Hinted = make([]bool, n+1)
		for i := range ex.Hinted {
			ex.Hinted[i] = rng.IntN(3) == 0
		}
	}
	return ex
}

// randomExamples is n random unhinted strings over L symbols, each of 1 to
// maxLen symbols.
func randomExamples(rng *rand.Rand, L, n, maxLen int) []Example {
	exs := make([]Example, n)
	for i := range exs {
		exs[i] = randomExample(rng, L, 1+rng.IntN(maxLen), false)
	}
	return exs
}

// gradOf runs one estimator with a fresh read stream seeded by seed.
func gradOf(e Estimator, net nn.Net, ex Example, refine int, seed uint64) ([]float64, float64) {
	return gradObj(e, net, nil, ex, refine, seed)
}

// gradObj is gradOf with the loss terms of obj; the heads' gradients follow
// the net's in the result.
func gradObj(e Estimator, net nn.Net, obj *Objective, ex Example, refine int, seed uint64) ([]float64, float64) {
	g := make([]float64, len(net.Params()))
	for _, h := range obj.Heads() {
		clear(h.Grad)
	}
	loss := e.Gradient(net, obj, ex, refine, rand.New(rand.NewPCG(seed, 5)), g)
	for _, h := range obj.Heads() {
		g = append(g, h.Grad...)
	}
	return g, loss
}

func relDiff(a, b []float64) (worst float64, at int) {
	scale := 0.0
	for _, v := range b {
		scale = math.Max(scale, math.Abs(v))
	}
	for i := range a {
		if d := math.Abs(a[i]-b[i]) / math.Max(scale, 1e-300); d > worst {
			worst, at = d, i
		}
	}
	return worst, at
}

// TestRTRLEqualsBPTT: the two exact estimators agree to 1e-8 relative (to
// the gradient's largest component) on random networks and strings, both
// orders, with refinement and hints; so do their losses.
func TestRTRLEqualsBPTT(t *testing.T) {
	eachOrderSeed(t, 8, func(t *testing.T, order nspda.Order, seed uint64) {
		net, ex := randomCase(t, order, seed)
		gb, lb := gradOf(&BPTT{}, net, ex, 3, seed)
		gr, lr := gradOf(&RTRL{}, net, ex, 3, seed)
		if lb != lr {
			t.Fatalf("losses differ: BPTT %v, RTRL %v", lb, lr)
		}
		checkAgree(t, "", gr, gb)
		if norm(gb) == 0 {
			t.Fatal("zero gradient: the test checks nothing")
		}
	})
}

// eachOrderSeed runs f in the subtests "order<o>/seed<s>", both orders,
// seeds 1 to n.
func eachOrderSeed(t *testing.T, n uint64, f func(t *testing.T, order nspda.Order, seed uint64)) {
	for _, order := range []nspda.Order{nspda.Second, nspda.Third} {
		for seed := uint64(1); seed <= n; seed++ {
			t.Run(fmt.Sprintf("order%d/seed%d", order, seed), func(t *testing.T) { f(t, order, seed) })
		}
	}
}

// randomCase is a random network (L = 3, J = 4) and a random string of 5
// to 16 symbols, hinted for even seeds.
func randomCase(t *testing.T, order nspda.Order, seed uint64) (*nspda.Net, Example) {
	net := testNet(t, order, 3, 4, seed)
	rng := rand.New(rand.NewPCG(seed, 4))
	return net, randomExample(rng, 3, 5+rng.IntN(12), seed%2 == 0)
}

// checkAgree fails t unless RTRL's gradient gr agrees with BPTT's gb to
// 1e-8 relative to the largest component; what prefixes the message.
func checkAgree(t *testing.T, what string, gr, gb []float64) {
	t.Helper()
	if d, at := relDiff(gr, gb); d > 1e-8 {
		t.Fatalf("%sparameter %d: RTRL %.12g, BPTT %.12g (relative %.3g)", what, at, gr[at], gb[at], d)
	}
}

// TestTBPTTLongWindowEqualsBPTT: a window at least as long as the string
// gives BPTT's gradient, through the shortcut and through the windowed sweeps.
func TestTBPTTLongWindowEqualsBPTT(t *testing.T) {
	for _, order := range []nspda.Order{nspda.Second, nspda.Third} {
		net := testNet(t, order, 2, 4, 9)
		rng := rand.New(rand.NewPCG(9, 9))
		for trial := 0; trial < 5; trial++ {
			ex := randomExample(rng, 2, 15, trial%2 == 0)
			gb, _ := gradOf(&BPTT{}, net, ex, 2, 1)
			gt, _ := gradOf(&TBPTT{Window: 50}, net, ex, 2, 1)
			if d, at := relDiff(gt, gb); d > 1e-12 {
				t.Fatalf("window 50: parameter %d differs by %g", at, d)
			}
			// Force the windowed sweeps with a window exactly the string's length.
			tb := &TBPTT{Window: ex.Steps()}
			g := make([]float64, len(net.Params()))
			tb.tp.forward(net, nil, ex, 2, rand.New(rand.NewPCG(1, 5)))
			tb.first = tb.first[:0]
			for i := 0; i < tb.tp.n; i++ {
				if i == 0 || tb.tp.sym[i] != tb.tp.sym[i-1] {
					tb.first = append(tb.first, i)
				}
			}
			S := net.StateSize()
			tb.ds, tb.ds2 = make([]float64, S), make([]float64, S)
			tb.sweepWindowed(net, nil, ex, g, ex.Steps())
			if d, at := relDiff(g, gb); d > 1e-10 {
				t.Fatalf("windowed sweeps with window = length: parameter %d differs by %g", at, d)
			}
			// A short window really truncates.
			gs, _ := gradOf(&TBPTT{Window: 2}, net, ex, 2, 1)
			if d, _ := relDiff(gs, gb); d < 1e-6 {
				t.Fatalf("window 2 gives BPTT's gradient (difference %g)", d)
			}
		}
	}
}

// TestUOROUnbiased: the mean of N UORO estimates converges to the exact
// gradient. Each component's sample mean must lie within 5 standard errors
// of the exact value (for ~150 components, a false alarm has probability
// below 1e-4 under the normal approximation), and the error of the mean must
// shrink with N roughly as 1/sqrt(N).
func TestUOROUnbiased(t *testing.T) {
	for _, order := range []nspda.Order{nspda.Second, nspda.Third} {
		net := testNet(t, order, 2, 3, 21)
		rng := rand.New(rand.NewPCG(21, 1))
		ex := randomExample(rng, 2, 6, false)
		exact, _ := gradOf(&BPTT{}, net, ex, 2, 7)
		P := len(exact)
		u := &UORO{Rng: rand.New(rand.NewPCG(99, uint64(order)))}
		const N = 20000
		sum, sq := make([]float64, P), make([]float64, P)
		errAt := map[int]float64{}
		for n := 1; n <= N; n++ {
			g, _ := gradOf(u, net, ex, 2, 7)
			for i, v := range g {
				sum[i] += v
				sq[i] += v * v
			}
			if n == N/16 || n == N {
				d := 0.0
				for i := range sum {
					d += (sum[i]/float64(n) - exact[i]) * (sum[i]/float64(n) - exact[i])
				}
				errAt[n] = math.Sqrt(d)
			}
		}
		worst := 0.0
		for i := range sum {
			mean := sum[i] / N
			sd := math.Sqrt(math.Max(sq[i]/N-mean*mean, 0))
			if sd <= 1e-9*math.Max(1, math.Abs(mean)) { // no randomness reaches this component
				if math.Abs(mean-exact[i]) > 1e-9*math.Max(1, math.Abs(exact[i])) {
					t.Fatalf("order %d: component %d has no variance but mean %g != exact %g", order, i, mean, exact[i])
				}
				continue
			}
			worst = math.Max(worst, math.Abs(mean-exact[i])/(sd/math.Sqrt(N)))
		}
		if worst > 5 {
			t.Errorf("order %d: a component's mean is %.2f standard errors from the exact gradient", order, worst)
		}
		// 16 times the draws should cut the error about 4 times; allow 2.5.
		if ratio := errAt[N/16] / errAt[N]; ratio < 2.5 {
			t.Errorf("order %d: error of the mean fell only %.2f times with 16 times the draws", order, ratio)
		}
		t.Logf("order %d: worst |z| %.2f, error of the mean %.4g at N=%d, %.4g at N=%d (|g| = %.4g)", order, worst, errAt[N/16], N/16, errAt[N], N, norm(exact))
	}
}

func TestSGDRefusesNonFinite(t *testing.T) {
	for _, g := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		p := []float64{1, 2}
		if err := SGD(p, []float64{0, g}, 0.1, 13); err == nil {
			t.Errorf("gradient %v accepted", g)
		}
	}
	p := []float64{1}
	if err := SGD(p, []float64{100}, 0.1, 13); err != nil || math.Abs(p[0]-(1-0.1*13)) > 1e-15 {
		t.Errorf("clipped step gave %v, %v", p, err)
	}
	if err := SGD([]float64{math.MaxFloat64}, []float64{-13}, math.MaxFloat64, 13); err == nil {
		t.Error("a step to +Inf was accepted")
	}
}
