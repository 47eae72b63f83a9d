package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nspda/nspda/model/nspda"
)

// softTestNet is testNet in SoftStack mode, sized for strings of maxLen
// symbols, at sharpness beta.
func softTestNet(t testing.TB, order nspda.Order, L, J int, seed uint64, maxLen int, beta float64) *nspda.Net {
	net := testNet(t, order, L, J, seed)
	net.SoftStack, net.Beta = true, beta
	net.Reserve(maxLen)
	return net
}

// TestSoftStackRTRLEqualsBPTT: with the superposition stack in the state,
// RTRL and BPTT agree to 1e-8, with the paper's loss and with every term of
// the objective (the heads then read the stack's cells too), refinement
// and hints; the soft stack changes the gradient of the action weights.
func TestSoftStackRTRLEqualsBPTT(t *testing.T) {
	eachOrderSeed(t, 5, func(t *testing.T, order nspda.Order, seed uint64) {
		net := softTestNet(t, order, 3, 4, seed, 14, 1.5)
		rng := rand.New(rand.NewPCG(seed, 4))
		ex := objExample(rng, 3, 5+rng.IntN(10))
		ex.Hinted = randomExample(rng, 3, len(ex.Syms), true).Hinted
		checkRTRLWithObjectives(t, net, ex, seed)
		digital := testNet(t, order, 3, 4, seed)
		gs, _ := gradOf(&BPTT{}, net, ex, 2, seed)
		gd, _ := gradOf(&BPTT{}, digital, ex, 2, seed)
		if d, _ := relDiff(gs, gd); d < 1e-6 {
			t.Fatal("the soft stack gives the digital stack's gradient: the test checks nothing")
		}
	})
}

// checkRTRLWithObjectives checks that RTRL and BPTT give net the same loss
// (1e-12) and gradient (checkAgree) on ex, with the paper's loss and with
// every objective term, two refinement iterations.
func checkRTRLWithObjectives(t *testing.T, net *nspda.Net, ex Example, seed uint64) {
	t.Helper()
	for _, obj := range []*Objective{nil, fullObjective(3, net.StateSize(), seed)} {
		gb, lb := gradObj(&BPTT{}, net, obj, ex, 2, seed)
		gr, lr := gradObj(&RTRL{}, net, obj, ex, 2, seed)
		if math.Abs(lb-lr) > 1e-12*math.Abs(lb) {
			t.Fatalf("losses differ: BPTT %v, RTRL %v", lb, lr)
		}
		checkAgree(t, fmt.Sprintf("objective %v: ", obj != nil), gr, gb)
	}
}

// TestSoftStackTBPTTLongWindow: a window longer than the string gives
// BPTT's gradient with the superposition stack.
func TestSoftStackTBPTTLongWindow(t *testing.T) {
	net := softTestNet(t, nspda.Third, 2, 4, 3, 12, 2)
	rng := rand.New(rand.NewPCG(3, 3))
	ex := randomExample(rng, 2, 11, false)
	gb, _ := gradOf(&BPTT{}, net, ex, 2, 1)
	gt, _ := gradOf(&TBPTT{Window: 50}, net, ex, 2, 1)
	if d, at := relDiff(gt, gb); d > 1e-12 {
		t.Fatalf("window 50: parameter %d differs by %g", at, d)
	}
}

// betas records each epoch's sharpness.
type betas []float64

func (b *betas) Epoch(m Metrics, _ float64) error { *b = append(*b, m.Beta); return nil }
func (b *betas) Checkpoint(*Checkpoint) error     { return nil }

// TestSharpnessSchedule: Run sets β_e = β0·growth^e on the net before each
// epoch, records it in the metrics, and without SoftStackBeta0 leaves the
// net's β and the metrics alone.
func TestSharpnessSchedule(t *testing.T) {
	run := func(beta0, growth float64) (*nspda.Net, betas) {
		net := softTestNet(t, nspda.Third, 2, 4, 1, 8, 7)
		env := smallEnv(net)
		set := Settings{Estimator: &BPTT{}, Curriculum: &phases{n: 10}, Refine: 1, MaxEpochs: 4,
			Schedule: Schedule{LR0: 1e-9}, Clip: 13, Seed: 3, SoftStackBeta0: beta0, SoftStackGrowth: growth}
		var b betas
		if _, err := Run(context.Background(), env, set, &b, nil); err != nil {
			t.Fatal(err)
		}
		return net, b
	}
	net, b := run(0.5, 2)
	for e, want := range []float64{0.5, 1, 2, 4} {
		if e >= len(b) || b[e] != want {
			t.Fatalf("recorded sharpness %v, want 0.5, 1, 2, 4", b)
		}
	}
	if net.Beta != 4 {
		t.Errorf("the net's β after the last epoch is %g, want 4", net.Beta)
	}
	net, b = run(0, 0)
	if net.Beta != 7 || b[0] != 0 {
		t.Errorf("without a schedule: the net's β %g (want 7 untouched), recorded %v (want 0)", net.Beta, b)
	}
}

// restartRun runs a soft net on six strings at a rate of 1e-9, which leaves
// the weights (and so the scores) as they are: epoch 2 does not improve,
// patience 1 runs out, and every later start ends after its one epoch,
// until set.Restarts are spent. It returns the net and each epoch's β.
func restartRun(t *testing.T, set Settings) (*nspda.Net, betas) {
	net := softTestNet(t, nspda.Third, 2, 4, 1, 8, 7)
	env := smallEnv(net)
	env.Init = func(int) error { return nil }
	set.Estimator, set.Curriculum, set.Refine, set.MaxEpochs = &BPTT{}, &phases{n: 10}, 1, 10
	set.Schedule, set.Clip, set.Seed, set.Patience = Schedule{LR0: 1e-9}, 13, 3, 1
	set.SoftStackBeta0, set.SoftStackGrowth = 0.5, 2
	var b betas
	if _, err := Run(context.Background(), env, set, &b, nil); err != nil {
		t.Fatal(err)
	}
	return net, b
}

// TestSharpnessRestarts: a restart begins soft again: the schedule counts
// epochs from the first epoch of the current start.
func TestSharpnessRestarts(t *testing.T) {
	_, b := restartRun(t, Settings{Restarts: 1})
	if want := (betas{0.5, 1, 0.5}); fmt.Sprint(b) != fmt.Sprint(want) {
		t.Errorf("sharpness per epoch %v, want %v", b, want)
	}
}

// TestSoftStackAlternate: with SoftStackAlternate, start 0 trains on the
// digital stack (β recorded as 0), start 1 on the superposition stack from
// β0, start 2 on the digital stack again; the epochs of a digital start
// give the gradient of a net without SoftStack.
func TestSoftStackAlternate(t *testing.T) {
	net, b := restartRun(t, Settings{Restarts: 2, SoftStackAlternate: true})
	if want := (betas{0, 0, 0.5, 0}); fmt.Sprint(b) != fmt.Sprint(want) {
		t.Errorf("sharpness per epoch %v, want %v (0: the digital stack)", b, want)
	}
	rng := rand.New(rand.NewPCG(1, 3))
	// The run ended in a digital start: the net now trains digitally.
	ex := randomExample(rng, 2, 9, false)
	gs, _ := gradOf(&BPTT{}, net, ex, 1, 1)
	gd, _ := gradOf(&BPTT{}, nspda.NewNet(net.Model), ex, 1, 1)
	if d, at := relDiff(gs, gd); d != 0 {
		t.Errorf("after a digital start, parameter %d's gradient differs from the digital net's by %g", at, d)
	}
}

// TestSoftStraightRTRLEqualsBPTT: the straight-through superposition stack
// (a surrogate gradient, so no finite-difference check applies) gives the
// same gradient under RTRL and BPTT, to 1e-8, with every objective term; it
// differs from the digital stack's one-step derivative and from the soft
// stack's.
func TestSoftStraightRTRLEqualsBPTT(t *testing.T) {
	eachOrderSeed(t, 5, func(t *testing.T, order nspda.Order, seed uint64) {
		net := softTestNet(t, order, 3, 4, seed, 14, 1.5)
		net.SoftStraight = true
		rng := rand.New(rand.NewPCG(seed, 4))
		ex := objExample(rng, 3, 5+rng.IntN(10))
		checkRTRLWithObjectives(t, net, ex, seed)
		gs, _ := gradOf(&BPTT{}, net, ex, 2, seed)
		gd, _ := gradOf(&BPTT{}, testNet(t, order, 3, 4, seed), ex, 2, seed)
		gf, _ := gradOf(&BPTT{}, softTestNet(t, order, 3, 4, seed, 14, 1.5), ex, 2, seed)
		if d, _ := relDiff(gs, gd); d < 1e-6 {
			t.Fatal("the straight-through stack gives the digital stack's gradient")
		}
		if d, _ := relDiff(gs, gf); d < 1e-6 {
			t.Fatal("the straight-through stack gives the soft stack's gradient")
		}
	})
}
