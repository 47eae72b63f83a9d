package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nspda/nspda/model/nspda"
)

// checkBatchSum fails t unless BatchBPTT's gradient and loss on exs equal,
// to 1e-9 relative, the sum of BPTT's per-string gradients and losses with
// the same read draws (string b draws from PCG(seed+b, 5)); the heads'
// gradients follow the net's.
func checkBatchSum(t *testing.T, net *nspda.Net, obj *Objective, exs []Example, refine int, seed uint64) {
	t.Helper()
	var wantLoss float64
	want := make([]float64, len(net.Params()))
	for _, h := range obj.Heads() {
		want = append(want, make([]float64, len(h.Grad))...)
	}
	for b, ex := range exs {
		g, l := gradObj(&BPTT{}, net, obj, ex, refine, seed+uint64(b))
		for i, v := range g {
			want[i] += v
		}
		wantLoss += l
	}
	rngs := make([]*rand.Rand, len(exs))
	for b := range rngs {
		rngs[b] = rand.New(rand.NewPCG(seed+uint64(b), 5))
	}
	for _, h := range obj.Heads() {
		clear(h.Grad)
	}
	got := make([]float64, len(net.Params()))
	gotLoss, err := (&BatchBPTT{}).GradientBatch(net, obj, exs, refine, rngs, got)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range obj.Heads() {
		got = append(got, h.Grad...)
	}
	if d, at := relDiff(got, want); d > 1e-9 {
		t.Errorf("gradient differs by %g (relative) at %d: %v, want %v", d, at, got[at], want[at])
	}
	if math.Abs(gotLoss-wantLoss) > 1e-9*math.Abs(wantLoss) {
		t.Errorf("loss %v, want %v", gotLoss, wantLoss)
	}
}

// TestBatchEqualsBPTTSum: the lock-step batch gradient equals the sum of the
// strings' BPTT gradients (same read draws per string) to 1e-9 relative,
// both orders, K = 1 and 3, strings of different lengths (the empty one
// included), with and without NoReadGrad, and with TwoSided; so does the
// loss.
func TestBatchEqualsBPTTSum(t *testing.T) {
	for _, order := range []nspda.Order{nspda.Second, nspda.Third} {
		for _, J := range []int{3, 8, 13} {
			for _, K := range []int{1, 3} {
				for _, mode := range []string{"plain", "noread", "twosided"} {
					for _, B := range []int{1, 7, 32} {
						name := fmt.Sprintf("order%d/J%d/K%d/%s/B%d", order, J, K, mode, B)
						t.Run(name, func(t *testing.T) {
							net := testNet(t, order, 3, J, uint64(J*10+K))
							net.NoReadGrad, net.TwoSided = mode == "noread", mode == "twosided"
							rng := rand.New(rand.NewPCG(uint64(B), 9))
							exs := make([]Example, B)
							for b := range exs {
								exs[b] = randomExample(rng, 3, rng.IntN(12), false)
							}
							checkBatchSum(t, net, nil, exs, K, 100)
						})
					}
				}
			}
		}
	}
}

// TestBatchEqualsBPTTSumObjective is TestBatchEqualsBPTTSum with every loss
// term of the learning issue: per-step output targets (some absent), the
// next-symbol-set and language-model heads and the action loss.
func TestBatchEqualsBPTTSumObjective(t *testing.T) {
	for _, order := range []nspda.Order{nspda.Second, nspda.Third} {
		for _, K := range []int{1, 4} {
			for seed := uint64(1); seed <= 3; seed++ {
				t.Run(fmt.Sprintf("order%d/K%d/seed%d", order, K, seed), func(t *testing.T) {
					const L = 4
					net := testNet(t, order, L, 8, seed)
					obj := fullObjective(L, net.StateSize(), seed)
					rng := rand.New(rand.NewPCG(seed, 9))
					exs := make([]Example, 16)
					for b := range exs {
						exs[b] = objExample(rng, L, 1+rng.IntN(10))
						if b%3 == 0 {
							exs[b].Label = 0
						}
					}
					checkBatchSum(t, net, obj, exs, K, 7)
				})
			}
		}
	}
}

// TestBatchRefuses: the batch path refuses what it does not run, with an
// error that says so.
func TestBatchRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	ex := randomExample(rng, 3, 5, false)
	grad := func(net *nspda.Net, ex Example) error {
		_, err := (&BatchBPTT{}).GradientBatch(net, nil, []Example{ex}, 1, []*rand.Rand{rng}, make([]float64, len(net.Params())))
		return err
	}
	if err := grad(testNet(t, nspda.Second, 3, 4, 1), ex); err != nil {
		t.Error(err)
	}
	soft := testNet(t, nspda.Third, 3, 4, 1)
	soft.SoftStack = true
	if err := grad(soft, ex); err == nil {
		t.Error("SoftStack accepted")
	}
	hinted := randomExample(rng, 3, 5, true)
	hinted.Hinted[0] = true
	if err := grad(testNet(t, nspda.Third, 3, 4, 1), hinted); err == nil {
		t.Error("hints accepted")
	}
	dead := ex
	dead.DeadAt = 2
	if err := grad(testNet(t, nspda.Third, 3, 4, 1), dead); err == nil {
		t.Error("dead-state hint accepted")
	}
	if err := grad(testNet(t, nspda.Third, 3, 4, 1), ex); err != nil {
		t.Error(err)
	}
}

// TestBatchAllocs: once its buffers have grown to a batch, the lock-step
// path allocates nothing to run it again (forward, backward, every loss
// term).
func TestBatchAllocs(t *testing.T) {
	const L = 4
	net := testNet(t, nspda.Third, L, 8, 1)
	obj := fullObjective(L, net.StateSize(), 1)
	rng := rand.New(rand.NewPCG(1, 9))
	exs := make([]Example, 32)
	rngs := make([]*rand.Rand, len(exs))
	for b := range exs {
		exs[b] = objExample(rng, L, 1+rng.IntN(20))
		rngs[b] = rand.New(rand.NewPCG(uint64(b), 5))
	}
	est, grad := &BatchBPTT{}, make([]float64, len(net.Params()))
	run := func() {
		if _, err := est.GradientBatch(net, obj, exs, 4, rngs, grad); err != nil {
			t.Fatal(err)
		}
	}
	run()
	if n := testing.AllocsPerRun(20, run); n != 0 {
		t.Errorf("%v allocations per batch", n)
	}
}
