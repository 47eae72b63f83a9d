package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nspda/nspda/evaluate"
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
// included), with and without NoReadGrad; so does the loss.
func TestBatchEqualsBPTTSum(t *testing.T) {
	for _, order := range []nspda.Order{nspda.Second, nspda.Third} {
		for _, J := range []int{3, 8, 13} {
			for _, K := range []int{1, 3} {
				for _, noRead := range []bool{false, true} {
					for _, B := range []int{1, 7, 32} {
						name := fmt.Sprintf("order%d/J%d/K%d/noread=%v/B%d", order, J, K, noRead, B)
						t.Run(name, func(t *testing.T) {
							net := testNet(t, order, 3, J, uint64(J*10+K))
							net.NoReadGrad = noRead
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

// losses records each epoch's metrics.
type losses []Metrics

func (l *losses) Epoch(m Metrics, _ float64) error { *l = append(*l, m); return nil }
func (l *losses) Checkpoint(*Checkpoint) error     { return nil }

// TestRunLockStep: Settings.LockStep trains in lock-step minibatches: the
// run is deterministic, counts the same characters as the default path,
// its first epoch's mean loss is the default path's up to the read draws,
// and it refuses what the batch path does not run.
func TestRunLockStep(t *testing.T) {
	run := func(lock bool, mod func(*Settings)) ([]float64, losses, error) {
		net := testNet(t, nspda.Third, 2, 5, 1)
		for i := range net.Params() {
			net.Params()[i] *= 0.3
		}
		rng := rand.New(rand.NewPCG(1, 2))
		var exs []Example
		for range 21 {
			exs = append(exs, randomExample(rng, 2, 1+rng.IntN(8), false))
		}
		env := Env{Net: net, Train: exs, Valid: exs[:3],
			Classifier: func() evaluate.Classifier { return net.Model.NewRunner() }}
		set := Settings{Estimator: &BPTT{}, Curriculum: &phases{n: 10}, Refine: 2, MaxEpochs: 3,
			Schedule: Schedule{LR0: 0.01}, Clip: 13, Seed: 3, Batch: 4, LockStep: lock}
		if mod != nil {
			mod(&set)
		}
		var l losses
		_, err := Run(context.Background(), env, set, &l, nil)
		return net.Params(), l, err
	}
	p1, l1, err := run(true, nil)
	if err != nil {
		t.Fatal(err)
	}
	p2, l2, _ := run(true, nil)
	if d, at := relDiff(p1, p2); d != 0 {
		t.Errorf("two lock-step runs differ at parameter %d", at)
	}
	p0, l0, _ := run(false, nil)
	if d, _ := relDiff(p1, p0); d == 0 {
		t.Error("the lock-step run did not change its read draws")
	}
	if len(l1) != 3 || len(l0) != 3 || len(l2) != 3 {
		t.Fatalf("%d, %d epochs recorded, want 3", len(l1), len(l0))
	}
	for e := range l1 {
		if l1[e].Chars != l0[e].Chars || math.IsNaN(l1[e].Loss) {
			t.Errorf("epoch %d: %d chars, loss %v; default path %d chars", e+1, l1[e].Chars, l1[e].Loss, l0[e].Chars)
		}
	}
	if r := l1[0].Loss / l0[0].Loss; r < 0.9 || r > 1.1 {
		t.Errorf("first epoch's mean loss %v, default path's %v", l1[0].Loss, l0[0].Loss)
	}
	for name, mod := range map[string]func(*Settings){
		"tbptt": func(s *Settings) { s.Estimator = &TBPTT{Window: 2} },
		"noise": func(s *Settings) { s.Noise = Noise{Percent: 10} },
	} {
		if _, _, err := run(true, mod); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}
