package train

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/model/rnn"
	"github.com/nspda/nspda/nn"
)

// objExample is a random string with every kind of target: per-step outputs
// (some absent), next-symbol sets and stack operations (some absent).
func objExample(rng *rand.Rand, L, n int) Example {
	ex := randomExample(rng, L, n, false)
	ex.Label = 1 // the language-model term needs a member
	ex.Out = make([]float64, n+1)
	for i := range ex.Out {
		ex.Out[i] = float64(rng.IntN(2))
		if rng.IntN(4) == 0 {
			ex.Out[i] = math.NaN()
		}
	}
	ex.Next = make([]bool, n*(L+1))
	for i := range ex.Next {
		ex.Next[i] = rng.IntN(2) == 0
	}
	ex.Ops = make([]int8, n)
	for i := range ex.Ops {
		ex.Ops[i] = int8(rng.IntN(4) - 1)
	}
	return ex
}

// fullObjective has every loss term on, the neutral-symbol prior on symbol
// 0 (start 1's).
func fullObjective(L, S int, seed uint64) *Objective {
	rng := rand.New(rand.NewPCG(seed, 8))
	o := &Objective{
		Next: NewHead(L+1, S, 0.5, rng), LM: NewHead(L+1, S, 0.5, rng),
		NextWeight: 0.7, LMWeight: 1.3, ActionWeight: 2, NeutralWeight: 0.9,
	}
	o.SetNeutral(0)
	return o
}

// objCase is a random third-order NSPDA over two symbols with J state
// neurons (testNet's with seed), an objExample of n symbols drawn from
// PCG(seed, stream), and the full objective for them.
func objCase(t *testing.T, J int, seed, stream uint64, n int) (*nspda.Net, Example, *Objective) {
	net := testNet(t, nspda.Third, 2, J, seed)
	ex := objExample(rand.New(rand.NewPCG(seed, stream)), 2, n)
	return net, ex, fullObjective(2, net.StateSize(), seed)
}

// TestObjectiveGradientFD checks BPTT's gradient of every loss term that
// does not need an NSPDA (per-step output targets, the next-symbol-set and
// language-model heads) against central finite differences of the loss, on
// a smooth network (an Elman RNN), over the net's and the heads' parameters.
func TestObjectiveGradientFD(t *testing.T) {
	var spec nn.Spec
	for _, s := range rnn.Specs {
		if s.Name == "lstm" {
			spec = s
		}
	}
	for seed := uint64(1); seed <= 3; seed++ {
		net, err := spec.New([]rune("ab"), nn.Options{Hidden: 3}, rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, 2))
		ex := objExample(rng, 2, 4+rng.IntN(4))
		obj := fullObjective(2, net.StateSize(), seed)
		got, _ := gradObj(&BPTT{}, net, obj, ex, 2, 1)
		vecs := [][]float64{net.Params(), obj.Next.Params, obj.LM.Params}
		var x []float64
		for _, v := range vecs {
			x = append(x, v...)
		}
		set := func(x []float64) {
			off := 0
			for _, v := range vecs {
				copy(v, x[off:off+len(v)])
				off += len(v)
			}
		}
		want := fd.Gradient(nil, func(y []float64) float64 {
			set(y)
			g := make([]float64, len(net.Params()))
			return (&BPTT{}).Gradient(net, obj, ex, 2, nil, g)
		}, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		set(x)
		if d, at := relDiff(got, want); d > 1e-6 {
			t.Fatalf("seed %d: parameter %d of %d: BPTT %.9g, finite differences %.9g (relative %.3g)", seed, at, len(x), got[at], want[at], d)
		}
		nz := 0
		for _, v := range got[len(net.Params()):] {
			if v != 0 {
				nz++
			}
		}
		if nz == 0 {
			t.Fatal("the heads get no gradient: the test checks nothing")
		}
	}
}

// TestObjectiveRTRLEqualsBPTT: with every loss term on (the action loss
// included), RTRL and BPTT agree to 1e-8 on the NSPDA, both orders, with
// refinement, and with the read's two-sided derivative on half the
// seeds; so do their losses.
func TestObjectiveRTRLEqualsBPTT(t *testing.T) {
	eachOrderSeed(t, 6, func(t *testing.T, order nspda.Order, seed uint64) {
		net := testNet(t, order, 3, 4, seed)
		net.TwoSided = seed%2 == 0 // the read's two-sided derivative on half the seeds
		rng := rand.New(rand.NewPCG(seed, 4))
		ex := objExample(rng, 3, 5+rng.IntN(10))
		obj := fullObjective(3, net.StateSize(), seed)
		gb, lb := gradObj(&BPTT{}, net, obj, ex, 2, seed)
		gr, lr := gradObj(&RTRL{}, net, obj, ex, 2, seed)
		if math.Abs(lb-lr) > 1e-12*math.Abs(lb) {
			t.Fatalf("losses differ: BPTT %v, RTRL %v", lb, lr)
		}
		checkAgree(t, "", gr, gb)
		g0, _ := gradObj(&BPTT{}, net, nil, ex, 2, seed)
		if d, _ := relDiff(gb[:len(g0)], g0); d < 1e-6 {
			t.Fatal("the objective's terms do not change the gradient: the test checks nothing")
		}
	})
}

// TestObjectiveTBPTTLongWindow: a window longer than the string gives
// BPTT's gradient with every loss term, through the windowed sweeps too.
func TestObjectiveTBPTTLongWindow(t *testing.T) {
	net, ex, obj := objCase(t, 4, 3, 3, 9)
	gb, _ := gradObj(&BPTT{}, net, obj, ex, 2, 1)
	gt, _ := gradObj(&TBPTT{Window: 50}, net, obj, ex, 2, 1)
	if d, at := relDiff(gt, gb); d > 1e-12 {
		t.Fatalf("window 50: parameter %d differs by %g", at, d)
	}
}

// TestUOROUnbiasedObjective: with every loss term on, and the read's
// two-sided derivative, the mean of UORO's estimates approaches the exact
// gradient (error of the mean falls with more draws, and lies within a few
// standard errors).
func TestUOROUnbiasedObjective(t *testing.T) {
	net, ex, obj := objCase(t, 3, 21, 1, 5)
	net.TwoSided = true
	exact, _ := gradObj(&BPTT{}, net, obj, ex, 2, 7)
	P := len(exact)
	u := &UORO{Rng: rand.New(rand.NewPCG(99, 1))}
	N := 8000
	if testing.Short() {
		N = 2000
	}
	sum, sq := make([]float64, P), make([]float64, P)
	for n := 1; n <= N; n++ {
		g, _ := gradObj(u, net, obj, ex, 2, 7)
		for i, v := range g {
			sum[i] += v
			sq[i] += v * v
		}
	}
	worst := 0.0
	for i := range sum {
		mean := sum[i] / float64(N)
		sd := math.Sqrt(math.Max(sq[i]/float64(N)-mean*mean, 0))
		if sd <= 1e-9*math.Max(1, math.Abs(mean)) {
			if math.Abs(mean-exact[i]) > 1e-9*math.Max(1, math.Abs(exact[i])) {
				t.Fatalf("component %d has no variance but mean %g != exact %g", i, mean, exact[i])
			}
			continue
		}
		worst = math.Max(worst, math.Abs(mean-exact[i])/(sd/math.Sqrt(float64(N))))
	}
	if worst > 5.5 {
		t.Errorf("a component's mean is %.2f standard errors from the exact gradient", worst)
	}
}

// TestAdamStep checks one Adam step against the closed form: after the
// first step from zero moments, each weight moves by lr·g/(|g|+ε′).
func TestAdamStep(t *testing.T) {
	a := NewAdam(3)
	p := [][]float64{{1, 2}, {3}}
	g := [][]float64{{0.5, -2}, {0}}
	if err := a.Step(p, g, 0.1); err != nil {
		t.Fatal(err)
	}
	want := []float64{1 - 0.1*0.5/(0.5+1e-8), 2 + 0.1*2/(2+1e-8), 3}
	got := []float64{p[0][0], p[0][1], p[1][0]}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("weight %d: %v, want %v", i, got[i], want[i])
		}
	}
	if err := a.Step(p, [][]float64{{math.NaN(), 0}, {0}}, 0.1); err == nil {
		t.Fatal("a NaN gradient was accepted")
	}
}

func TestClipNorm(t *testing.T) {
	g := [][]float64{{3}, {4}}
	if n := clipNorm(g, 1); n != 5 || math.Abs(g[0][0]-0.6) > 1e-15 || math.Abs(g[1][0]-0.8) > 1e-15 {
		t.Fatalf("norm %v, clipped %v", n, g)
	}
	g = [][]float64{{0.3}, {0.4}}
	if clipNorm(g, 1); g[0][0] != 0.3 || g[1][0] != 0.4 {
		t.Fatalf("a gradient under the bound was scaled: %v", g)
	}
}

// TestHeadSkipsTrailingZeros checks that a head's logits and gradients,
// which skip the state's trailing zeros, equal bit for bit the sums over
// the whole state (with weights of both signs, so that the skipped products
// include −0).
func TestHeadSkipsTrailingZeros(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const C, S = 3, 12
	for live := range S + 1 {
		h := NewHead(C, S, 1, rng)
		for c := range C {
			h.Params[C*S+c] = rng.NormFloat64() // nonzero biases
		}
		s := make([]float64, S)
		for i := range live {
			s[i] = rng.NormFloat64()
		}
		h.logits(s, nn.NonzeroLen(s))
		for c := range C {
			want := h.Params[C*S+c]
			sum := 0.0
			for i, v := range s {
				sum += h.Params[c*S+i] * v
			}
			if want += sum; math.Float64bits(h.u[c]) != math.Float64bits(want) {
				t.Fatalf("live %d: logit %d is %v, the full sum %v", live, c, h.u[c], want)
			}
			h.du[c] = rng.NormFloat64()
		}
		for i := range h.Grad {
			h.Grad[i] = rng.NormFloat64()
		}
		grad := slices.Clone(h.Grad)
		ds := make([]float64, S)
		h.back(s, ds, nn.NonzeroLen(s))
		for c, d := range h.du {
			grad[C*S+c] += d
			for i, v := range s {
				grad[c*S+i] += d * v
			}
		}
		for i := range grad {
			if math.Float64bits(grad[i]) != math.Float64bits(h.Grad[i]) {
				t.Fatalf("live %d: gradient %d is %v, the full sum %v", live, i, h.Grad[i], grad[i])
			}
		}
	}
}

// TestNeutralTarget: the neutral-symbol prior pulls the action neurons
// towards the no-op on the steps of the start's symbol only, after the
// action loss; starts cycle through none and each symbol.
func TestNeutralTarget(t *testing.T) {
	for r, want := range []int{-1, 0, 1, 2, -1, 0} {
		if got := NeutralSymbol(r, 3); got != want {
			t.Errorf("start %d of 3 symbols: neutral symbol %d, want %d", r, got, want)
		}
	}
	ex := Example{Syms: []int{0, 1, 0, 2}, Ops: []int8{1, -1, -1, -1}}
	obj := &Objective{ActionWeight: 2, NeutralWeight: 0.5}
	type term struct {
		op int
		w  float64
		on bool
	}
	for _, c := range []struct {
		start int
		want  []term // inputs 0..3 and the end marker, iteration 0
	}{
		{0, []term{{1, 2, true}, {0, 0, false}, {0, 0, false}, {0, 0, false}, {0, 0, false}}},  // no neutral symbol
		{1, []term{{1, 2, true}, {0, 0, false}, {0, 0.5, true}, {0, 0, false}, {0, 0, false}}}, // symbol 0; the PDA's op first
		{2, []term{{1, 2, true}, {0, 0.5, true}, {0, 0, false}, {0, 0, false}, {0, 0, false}}}, // symbol 1
	} {
		obj.SetNeutral(NeutralSymbol(c.start, 3))
		for i, w := range c.want {
			op, wt, on := obj.actionTarget(ex, i, 0)
			if (term{op, wt, on}) != w {
				t.Errorf("start %d, input %d: got (%d, %g, %v), want %+v", c.start, i, op, wt, on, w)
			}
		}
		if _, _, on := obj.actionTarget(ex, 2, 1); on {
			t.Errorf("start %d: a later iteration has an action term", c.start)
		}
	}
	alone := &Objective{NeutralWeight: 0.5}
	alone.SetNeutral(1)
	for i, want := range []bool{false, true, false, false} {
		if _, _, on := alone.actionTarget(ex, i, 0); on != want {
			t.Errorf("the prior alone, input %d (symbol %d): term %v, want %v", i, ex.Syms[i], on, want)
		}
	}
	// On a final start, FinalNeutralWeight (when positive) weighs the
	// prior instead; the other terms keep their weights.
	obj.SetNeutral(0)
	for _, c := range []struct {
		finalW float64
		final  bool
		want   float64
	}{{1.5, true, 1.5}, {1.5, false, 0.5}, {0, true, 0.5}} {
		obj.FinalNeutralWeight = c.finalW
		obj.SetFinal(c.final)
		if _, w, _ := obj.actionTarget(ex, 2, 0); w != c.want {
			t.Errorf("FinalNeutralWeight %g, final %v: the prior's weight %g, want %g", c.finalW, c.final, w, c.want)
		}
		if _, w, _ := obj.actionTarget(ex, 0, 0); w != 2 {
			t.Errorf("FinalNeutralWeight %g, final %v: the action loss's weight %g, want 2", c.finalW, c.final, w)
		}
	}
	var none *Objective
	none.SetNeutral(0) // a nil objective: nothing to set, no panic
	none.SetFinal(true)
}
