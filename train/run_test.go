package train

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/nn/nntest"
)

// phases is a curriculum of n stochastic epochs, then fixed ones (as 2-IL's
// two stages), over every string.
type phases struct{ n, done int }

func (p *phases) Name() string { return "test" }
func (p *phases) Next(*Report) (Phase, bool) {
	p.done++
	return Phase{MaxLen: 100, Stage: 1 + min(1, p.done/(p.n+1)), Stochastic: p.done <= p.n, WeightNoise: p.done > p.n}, true
}

type rates []float64

func (r *rates) Epoch(m Metrics, _ float64) error { *r = append(*r, m.LR); return nil }
func (r *rates) Checkpoint(*Checkpoint) error     { return nil }

// metricsLog records every epoch's metrics.
type metricsLog []Metrics

func (l *metricsLog) Epoch(m Metrics, _ float64) error { *l = append(*l, m); return nil }
func (l *metricsLog) Checkpoint(*Checkpoint) error     { return nil }

// smallEnv trains net on six random strings of length 5 over two symbols,
// the first two also the validation set, classified by the net's Runner.
func smallEnv(net *nspda.Net) Env {
	rng := rand.New(rand.NewPCG(1, 2))
	var exs []Example
	for range 6 {
		exs = append(exs, randomExample(rng, 2, 5, false))
	}
	return runnerEnv(net, exs, exs[:2])
}

// runnerEnv trains net on train and validates it on valid, classified by
// the net's Runner.
func runnerEnv(net *nspda.Net, train, valid []Example) Env {
	return Env{Net: net, Train: train, Valid: valid,
		Classifier: func() evaluate.Classifier { return net.Model.NewRunner() }}
}

// TestFixedRate: fixed-rate phases run at η_0, or with FixedAnnealed at
// the mean of the annealed rate at the epoch they began, constant after it;
// the stochastic epochs before are the same either way.
func TestFixedRate(t *testing.T) {
	const lr0, stochastic, epochs = 0.1, 5, 8
	run := func(annealed bool) rates {
		net := testNet(t, nspda.Third, 2, 4, 1)
		env := smallEnv(net)
		set := Settings{Estimator: &BPTT{}, Curriculum: &phases{n: stochastic}, Refine: 1, MaxEpochs: epochs,
			Schedule: Schedule{LR0: lr0, FixedAnnealed: annealed}, Clip: 13, Seed: 3}
		var r rates
		if _, err := Run(context.Background(), env, set, &r, nil); err != nil {
			t.Fatal(err)
		}
		if len(r) != epochs {
			t.Fatalf("%d epochs recorded, want %d (converged early?)", len(r), epochs)
		}
		return r
	}
	plain, annealed := run(false), run(true)
	for e := range stochastic {
		if plain[e] != annealed[e] || plain[e] > lr0/(1+float64(e)/100) || plain[e] < lr0/2/(1+float64(e)/100) {
			t.Errorf("epoch %d: rates %g and %g, want one draw of the annealed rate", e+1, plain[e], annealed[e])
		}
	}
	want := lr0 * 0.75 / (1 + stochastic/100.0)
	for e := stochastic; e < epochs; e++ {
		if plain[e] != lr0 {
			t.Errorf("epoch %d: fixed rate %g, want η_0 = %g", e+1, plain[e], lr0)
		}
		if math.Abs(annealed[e]-want) > 1e-15 {
			t.Errorf("epoch %d: FixedAnnealed rate %g, want %g", e+1, annealed[e], want)
		}
	}
}

// TestProbes: the probes come after the long starts, with their own
// patience.
func TestProbes(t *testing.T) {
	set := Settings{Patience: 20, Restarts: 3, Probes: 4, ProbePatience: 5}
	for r, w := range []int{20, 20, 20, 20, 5, 5, 5, 5} {
		if got := startOf(set, r).Patience; got != w {
			t.Errorf("start %d: patience %d, want %d", r, got, w)
		}
	}
}

// TestRunLockStep: Settings.LockStep trains in lock-step minibatches: the
// run is deterministic, counts the same characters as the default path,
// its first epoch's mean loss is the default path's up to the read draws,
// and it refuses what the batch path does not run.
func TestRunLockStep(t *testing.T) {
	run := func(lock bool, mod func(*Settings)) ([]float64, metricsLog, error) {
		net := testNet(t, nspda.Third, 2, 5, 1)
		for i := range net.Params() {
			net.Params()[i] *= 0.3
		}
		exs := randomExamples(rand.New(rand.NewPCG(1, 2)), 2, 21, 8)
		env := runnerEnv(net, exs, exs[:3])
		set := Settings{Estimator: &BPTT{}, Curriculum: &phases{n: 10}, Refine: 2, MaxEpochs: 3,
			Schedule: Schedule{LR0: 0.01}, Clip: 13, Seed: 3, Batch: 4, LockStep: lock}
		if mod != nil {
			mod(&set)
		}
		var l metricsLog
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

// TestEvalWorkers: classifying the per-epoch sets on several goroutines
// gives the metrics and weights of one goroutine exactly (run with -race
// to see that the NSPDA's runners share nothing).
func TestEvalWorkers(t *testing.T) {
	run := func(workers int) (metricsLog, []float64) {
		net := testNet(t, nspda.Third, 2, 4, 5)
		exs := randomExamples(rand.New(rand.NewPCG(5, 2)), 2, 40, 9)
		env := runnerEnv(net, exs, exs[:7])
		env.Select, env.Init, env.EvalWorkers = exs[3:20], func(int) error { return nil }, workers
		set := Settings{Estimator: &BPTT{}, Curriculum: &phases{n: 10}, Refine: 1, MaxEpochs: 4,
			Schedule: Schedule{LR0: 0.05}, Clip: 13, Seed: 3, Patience: 2, Restarts: 1}
		var l metricsLog
		if _, err := Run(context.Background(), env, set, &l, nil); err != nil {
			t.Fatal(err)
		}
		return l, append([]float64(nil), net.Params()...)
	}
	m1, p1 := run(1)
	for _, w := range []int{2, 3, 64} {
		mw, pw := run(w)
		a, _ := json.Marshal(mw)
		b, _ := json.Marshal(m1)
		if string(a) != string(b) {
			t.Fatalf("%d workers: metrics %s, one worker %s", w, a, b)
		}
		for i := range p1 {
			if pw[i] != p1[i] {
				t.Fatalf("%d workers: parameter %d differs", w, i)
			}
		}
	}
	if len(m1) == 0 || m1[0].SelectAcc == nil {
		t.Fatal("no epoch, or no selection: the test checks nothing")
	}
}

// TestOwnPatience: without OwnPatience a later start's patience runs out
// while it improves on its own plateau but not on the best of all starts;
// with it, each own improvement starts the count again, on the long starts
// only; either way the best weights are those of all starts.
func TestOwnPatience(t *testing.T) {
	// Start 1's training accuracies (select: all right); the best of start
	// 0 had 0.99.
	accs := []float64{0.90, 0.90, 0.95, 0.95, 0.97, 0.97, 0.97, 0.995}
	for _, tc := range []struct {
		set   Settings
		start int
		since []int
	}{
		{Settings{Patience: 2, Restarts: 3}, 1, []int{1, 2, 3, 4, 5, 6, 7, 0}},
		{Settings{Patience: 2, Restarts: 3, OwnPatience: true}, 1, []int{0, 1, 0, 1, 0, 1, 2, 0}},
		{Settings{Patience: 2, Restarts: 3, Probes: 5, OwnPatience: true}, 4, []int{1, 2, 3, 4, 5, 6, 7, 0}},
		// A start with a neutral symbol and NeutralPatience counts its own
		// progress; start 3 of a two-symbol alphabet has none.
		{Settings{Patience: 2, Restarts: 3, NeutralSymbols: 2, NeutralPatience: 9}, 1, []int{0, 1, 0, 1, 0, 1, 2, 0}},
		{Settings{Patience: 2, Restarts: 3, NeutralSymbols: 2, NeutralPatience: 9}, 3, []int{1, 2, 3, 4, 5, 6, 7, 0}},
		{Settings{Patience: 2, Restarts: 3, NeutralSymbols: 2}, 1, []int{1, 2, 3, 4, 5, 6, 7, 0}},
	} {
		sel := &Selection{Epoch: 3, Errors: 0.01, TrainAcc: 0.99, Params: []float64{3}}
		for e, a := range accs {
			sel.advance(startOf(tc.set, tc.start), 10+e, a, 1, []float64{float64(10 + e)})
			if sel.SinceBest != tc.since[e] {
				t.Errorf("own %v, start %d, epoch %d: since best %d, want %d", tc.set.OwnPatience, tc.start, e, sel.SinceBest, tc.since[e])
			}
		}
		if last := accs[len(accs)-1]; sel.Epoch != 17 || sel.Params[0] != 17 || sel.Errors != (1-last)+(1-1.0) {
			t.Errorf("own %v, start %d: best epoch %d (%v, errors %v), want 17, the only one better than 0.99", tc.set.OwnPatience, tc.start, sel.Epoch, sel.Params, sel.Errors)
		}
	}
}

// TestNeutralStarts: the long starts cycle through none and each symbol
// of the alphabet as the neutral one; the probes have none; a start with
// one has NeutralPatience.
func TestNeutralStarts(t *testing.T) {
	set := Settings{Patience: 20, Restarts: 8, Probes: 10, ProbePatience: 3, NeutralSymbols: 3, NeutralPatience: 50, NeutralTwoSided: true}
	for r, want := range []struct{ sym, patience int }{
		{-1, 20}, {0, 50}, {1, 50}, {2, 50}, {-1, 20}, {0, 50}, {1, 50}, {2, 50}, {-1, 20}, // the long starts
		{-1, 3}, {-1, 3}, {-1, 3}, // probes
	} {
		if sym, p, two := startOf(set, r).Neutral, startOf(set, r).Patience, startOf(set, r).TwoSided; sym != want.sym || p != want.patience || two != (want.sym >= 0) {
			t.Errorf("start %d: neutral symbol %d, patience %d, two-sided %v; want %d, %d, %v", r, sym, p, two, want.sym, want.patience, want.sym >= 0)
		}
	}
	set.NeutralTwoSided = false
	if startOf(set, 1).TwoSided {
		t.Error("without NeutralTwoSided, a neutral start is two-sided")
	}
	set.NeutralSymbols = 0
	for r := range 12 {
		if sym := startOf(set, r).Neutral; sym != -1 {
			t.Errorf("without the prior, start %d has neutral symbol %d", r, sym)
		}
	}
}

// TestSelectSum: selection ranks epochs by the sum of their training and
// select error fractions, so an epoch with training errors wins when its
// select score makes up for them, and a tie keeps the earlier epoch.
func TestSelectSum(t *testing.T) {
	// Accuracies (training set, select split) of six epochs in order.
	epochs := [][2]float64{{0.9, 0.9}, {0.99, 1}, {1, 0.95}, {1, 0.97}, {0.995, 1}, {1, 0.995}}
	best := []int{0, 1, 1, 1, 4, 4} // the best epoch after each epoch
	sel := &Selection{Errors: math.Inf(1)}
	for e, a := range epochs {
		if sel.beatenBy((1 - a[0]) + (1 - a[1])) {
			sel.Epoch, sel.Errors, sel.TrainAcc = e, (1-a[0])+(1-a[1]), a[0]
			sel.Params = []float64{float64(e)}
		}
		if sel.Epoch != best[e] {
			t.Errorf("best after epoch %d is %d, want %d", e, sel.Epoch, best[e])
		}
	}
}

// cpLog records every epoch's metrics and a deep copy of every checkpoint,
// and cancels its run after the checkpoint of epoch stop (0: never).
type cpLog struct {
	metricsLog
	cps    []*Checkpoint
	stop   int
	cancel context.CancelFunc
}

func (l *cpLog) Checkpoint(c *Checkpoint) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	var cp Checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		return err
	}
	if l.cps = append(l.cps, &cp); cp.Epoch == l.stop {
		l.cancel()
	}
	return nil
}

// twinEnv is a net and a training set no weights fit (one string carries
// both labels), with a select split and an initializer for restarts that
// appends each start's index to inits (if not nil).
func twinEnv(t *testing.T, inits *[]int) (*nspda.Net, Env) {
	net := testNet(t, nspda.Third, 2, 4, 5)
	exs := randomExamples(rand.New(rand.NewPCG(5, 2)), 2, 30, 8)
	twin := exs[0]
	twin.Label = 1 - twin.Label
	exs = append(exs, twin)
	env := runnerEnv(net, exs, exs[:7])
	env.Select = exs[3:20]
	env.Init = func(r int) error {
		if inits != nil {
			*inits = append(*inits, r)
		}
		nntest.FillNormal(net.Params(), uint64(10+r), 1)
		return nil
	}
	return net, env
}

// twinSettings are the settings the twinEnv tests share: Adam at lr,
// batches of 4, patience 2 and one restart.
func twinSettings(lr float64, maxEpochs int) Settings {
	return Settings{Estimator: &BPTT{}, Curriculum: &phases{n: 100}, Refine: 1, MaxEpochs: maxEpochs,
		Schedule: Schedule{LR0: lr}, Optimizer: "adam", Batch: 4, Seed: 3, Patience: 2, Restarts: 1}
}

// twinRun runs set on a twinEnv (whose Init appends to inits), from the
// checkpoint from (nil: a new run), cancelled after the checkpoint of
// epoch stop (0: never); it returns the run's checkpoints and metrics,
// its result and the net's final parameters.
func twinRun(t *testing.T, set Settings, inits *[]int, from *Checkpoint, stop int) (*cpLog, Result, []float64, error) {
	net, env := twinEnv(t, inits)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l := &cpLog{stop: stop, cancel: cancel}
	res, err := Run(ctx, env, set, l, from)
	return l, res, slices.Clone(net.Params()), err
}

// TestPolish: a run whose starts all end with imperfect weights (one
// string carries both labels) polishes them: its epochs before are those of
// the run without Polish; the polishing epochs, at most 2·Polish of them,
// past MaxEpochs, run by SGD at the stochastic rate counted from their
// first epoch, Adam's state untouched; the best weights are kept; a run
// killed while polishing resumes to the same weights; a run that
// MaxEpochs cuts short of its last start does not polish; and the polish
// takes at most MaxEpochs epochs.
func TestPolish(t *testing.T) {
	const lr = 0.02
	run := func(polish, maxEpochs int, from *Checkpoint, stop int) (*cpLog, Result, []float64, error) {
		set := twinSettings(lr, maxEpochs)
		set.Polish = polish
		return twinRun(t, set, nil, from, stop)
	}
	plain, plainRes, _, err := run(0, 50, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := len(plain.metricsLog) // the epochs of the two starts
	if plainRes.SelectErrors == 0 || n >= 50 {
		t.Fatalf("the run without polish is perfect, or its starts did not end (%d epochs): the test checks nothing", n)
	}
	const polish = 3
	l, res, params, err := run(polish, n, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d epochs without polish, %d with; scores %v, %v", n, len(l.metricsLog), plainRes.SelectErrors, res.SelectErrors)
	if len(l.metricsLog) <= n || len(l.metricsLog) > n+2*polish {
		t.Fatalf("%d epochs with polish and MaxEpochs %d: want 1 to %d more", len(l.metricsLog), n, 2*polish)
	}
	a, _ := json.Marshal(l.metricsLog[:n])
	b, _ := json.Marshal(plain.metricsLog)
	if string(a) != string(b) {
		t.Errorf("the epochs before polishing differ:\n%s\n%s", a, b)
	}
	for e, m := range l.metricsLog {
		top := lr / (1 + float64(e-n)/100) // Schedule.Rate's bound, e−n epochs into the polish
		if e < n && m.LR != lr || e >= n && (m.LR > top || m.LR < top/2 || m.LR == lr) {
			t.Errorf("epoch %d: rate %v (Adam's %v before the polish, SGD's in [%v, %v] in it)", e+1, m.LR, lr, top/2, top)
		}
	}
	last := l.cps[len(l.cps)-1]
	if last.PolishFrom != n+1 || last.Adam.T != l.cps[n-1].Adam.T || last.Adam.T == 0 {
		t.Errorf("polish from %d, want %d; Adam's steps %d at its start, %d at the end", last.PolishFrom, n+1, l.cps[n-1].Adam.T, last.Adam.T)
	}
	if res.SelectErrors > plainRes.SelectErrors {
		t.Errorf("polishing kept a worse score: %v against %v", res.SelectErrors, plainRes.SelectErrors)
	}
	// Killed after the first polishing epoch, and resumed.
	killed, _, _, err := run(polish, n, nil, n+1)
	if err == nil {
		t.Fatal("the run was not cancelled")
	}
	cp := killed.cps[len(killed.cps)-1]
	if cp.PolishFrom == 0 {
		t.Fatal("the last checkpoint of the killed run is not polishing")
	}
	_, res2, params2, err := run(polish, n, cp, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d, at := relDiff(params, params2); d != 0 || res2 != res {
		t.Errorf("the resumed run differs (parameter %d; results %+v, %+v)", at, res2, res)
	}
	// Cut short by MaxEpochs in its last start: no polish.
	if cut, _, _, err := run(polish, n-1, nil, 0); err != nil || len(cut.metricsLog) != n-1 || cut.cps[n-2].PolishFrom != 0 {
		t.Errorf("a run cut at %d epochs ran %d (%v)", n-1, len(cut.metricsLog), err)
	}
	// A polish whose 2·Polish epochs exceed MaxEpochs ends after MaxEpochs
	// (its patience, 50, does not run out first).
	if long, _, _, err := run(50, n, nil, 0); err != nil || len(long.metricsLog) != 2*n {
		t.Errorf("a polish of patience 50 with MaxEpochs %d: %d epochs in all, want %d (%v)", n, len(long.metricsLog), 2*n, err)
	}
}

// TestFinalStarts: a run whose weights are still imperfect after its
// starts and its polish (one string carries both labels) takes the Final
// starts: its epochs before them are those of the run without them; each
// draws new weights (Env.Init with the next start's index) and trains by
// the run's optimizer, not the polish's SGD; they have MaxEpochs epochs of
// their own; the best weights are kept; a run killed in them resumes to
// the same weights.
func TestFinalStarts(t *testing.T) {
	const lr = 0.02
	run := func(final, maxEpochs int, from *Checkpoint, stop int) (*cpLog, Result, []float64, []int, error) {
		var inits []int
		set := twinSettings(lr, maxEpochs)
		set.Polish, set.Final = 3, final
		l, res, params, err := twinRun(t, set, &inits, from, stop)
		return l, res, params, inits, err
	}
	plain, plainRes, _, _, err := run(0, 30, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := len(plain.metricsLog) // the two starts' epochs and the polish's
	if plainRes.SelectErrors == 0 || n >= 30 || plain.cps[n-1].PolishFrom == 0 {
		t.Fatalf("the run without final starts is perfect, or did not polish (%d epochs): the test checks nothing", n)
	}
	const final = 3
	l, res, params, inits, err := run(final, 30, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := len(l.metricsLog)
	t.Logf("%d epochs without final starts, %d with; scores %v, %v", n, m, plainRes.SelectErrors, res.SelectErrors)
	a, _ := json.Marshal(l.metricsLog[:n])
	b, _ := json.Marshal(plain.metricsLog)
	if string(a) != string(b) {
		t.Errorf("the epochs before the final starts differ:\n%s\n%s", a, b)
	}
	last := l.cps[len(l.cps)-1]
	if !slices.Equal(inits, []int{1, 2, 3, 4}) || last.Restart != 1+final || last.FinalFrom != n+1 {
		t.Errorf("initial weights drawn for starts %v, last start %d, final from %d: want [1 2 3 4], %d, %d", inits, last.Restart, last.FinalFrom, 1+final, n+1)
	}
	if m-n < final*3 || m-n > 30 {
		t.Errorf("%d epochs in %d final starts of patience 2 with a budget of 30", m-n, final)
	}
	for e := n; e < m; e++ {
		if got := l.metricsLog[e].LR; got != lr {
			t.Errorf("final epoch %d: rate %v, want Adam's %v", e+1, got, lr)
		}
	}
	if res.SelectErrors > plainRes.SelectErrors {
		t.Errorf("the final starts kept a worse score: %v against %v", res.SelectErrors, plainRes.SelectErrors)
	}
	// Killed in the second final start, and resumed.
	killed, _, _, _, err := run(final, 30, nil, n+4)
	if err == nil {
		t.Fatal("the run was not cancelled")
	}
	cp := killed.cps[len(killed.cps)-1]
	if cp.FinalFrom == 0 {
		t.Fatal("the last checkpoint of the killed run is not in the final starts")
	}
	_, res2, params2, _, err := run(final, 30, cp, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d, at := relDiff(params, params2); d != 0 || res2 != res {
		t.Errorf("the resumed run differs (parameter %d; results %+v, %+v)", at, res2, res)
	}
	// MaxEpochs as the starts before the polish took: the final starts'
	// own budget, too short for the three, ends them.
	k := plain.cps[n-1].PolishFrom - 1 // the epochs before the polish
	if short, _, _, _, err := run(final, k, nil, 0); err != nil || len(short.metricsLog) != n+k {
		t.Errorf("a run with MaxEpochs %d ran %d epochs, want %d (%v)", k, len(short.metricsLog), n+k, err)
	}
}

// TestFinalCut: a run with Final starts that MaxEpochs cuts short in one
// of its first starts, with imperfect weights, skips the starts it did not
// take and goes on to its polish (if it has one) and the final starts,
// which draw the weights of starts Restarts+Probes+1…, as in a run whose
// starts all ended, and have MaxEpochs epochs of their own; its epochs
// before the cut are those of the run without final starts, which ends
// there.
func TestFinalCut(t *testing.T) {
	const lr, restarts, final, polish = 0.02, 4, 3, 3
	resume := func(polish, final, maxEpochs int, from *Checkpoint, stop int) (*cpLog, Result, []float64, []int, error) {
		var inits []int
		set := twinSettings(lr, maxEpochs)
		set.Restarts, set.Polish, set.Final = restarts, polish, final
		l, res, params, err := twinRun(t, set, &inits, from, stop)
		return l, res, params, inits, err
	}
	run := func(polish, final, maxEpochs int) (*cpLog, Result, []float64, []int) {
		l, res, params, inits, err := resume(polish, final, maxEpochs, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		return l, res, params, inits
	}
	// The cut: the epoch after start 1's first, so that starts 2… are
	// never taken and the final starts have room for more than one.
	whole, _, _, _ := run(0, 0, 500)
	cut := slices.IndexFunc(whole.cps, func(c *Checkpoint) bool { return c.Restart == 1 }) + 2
	if cut < 2 || whole.cps[cut-1].Restart != 1 {
		t.Fatalf("start 1 has no second epoch (%d epochs in all): the test checks nothing", len(whole.cps))
	}
	for _, polish := range []int{polish, 0} {
		plain, plainRes, _, plainInits := run(polish, 0, cut)
		if len(plain.metricsLog) != cut || plainRes.SelectErrors == 0 || !slices.Equal(plainInits, []int{1}) {
			t.Fatalf("polish %d: the run without final starts ran %d epochs (want %d), score %v, starts %v",
				polish, len(plain.metricsLog), cut, plainRes.SelectErrors, plainInits)
		}
		l, res, params, inits := run(polish, final, cut)
		m := len(l.metricsLog)
		t.Logf("polish %d: cut at epoch %d, %d epochs in all, starts %v, scores %v, %v", polish, cut, m, inits, plainRes.SelectErrors, res.SelectErrors)
		if m <= cut {
			t.Errorf("polish %d: the run ended at the cut (%d epochs)", polish, m)
			continue
		}
		// Killed at the cut, and resumed.
		killed, _, _, _, err := resume(polish, final, cut, nil, cut)
		if err == nil {
			t.Fatal("the run was not cancelled")
		}
		if _, res2, params2, _, err := resume(polish, final, cut, killed.cps[cut-1], 0); err != nil || res2 != res || !slices.Equal(params2, params) {
			t.Errorf("polish %d: the run resumed at the cut differs (%v; results %+v, %+v)", polish, err, res2, res)
		}
		a, _ := json.Marshal(l.metricsLog[:cut])
		b, _ := json.Marshal(plain.metricsLog)
		if string(a) != string(b) {
			t.Errorf("polish %d: the epochs before the cut differ:\n%s\n%s", polish, a, b)
		}
		next := l.cps[cut] // the epoch after the cut
		if polish > 0 && (next.PolishFrom != cut+1 || next.FinalFrom != 0) || polish == 0 && (next.PolishFrom != 0 || next.FinalFrom != cut+1) {
			t.Errorf("polish %d: the epoch after the cut polishes from %d and is final from %d", polish, next.PolishFrom, next.FinalFrom)
		}
		last := l.cps[m-1]
		want := []int{1}
		for r := restarts + 1; r <= last.Restart; r++ {
			want = append(want, r)
		}
		if len(want) < 3 || !slices.Equal(inits, want) {
			t.Errorf("polish %d: weights drawn for starts %v, want %v (at least two final starts)", polish, inits, want)
		}
		if f := m - last.FinalFrom + 1; last.FinalFrom <= cut || f > cut {
			t.Errorf("polish %d: final from epoch %d, %d final epochs with a budget of %d", polish, last.FinalFrom, f, cut)
		}
		if res.SelectErrors > plainRes.SelectErrors {
			t.Errorf("polish %d: the final starts kept a worse score: %v against %v", polish, res.SelectErrors, plainRes.SelectErrors)
		}
	}
}

// TestFinalSymbols: the final starts hold every symbol in turn, then none,
// are not probes, and have a patience of their own.
func TestFinalSymbols(t *testing.T) {
	set := Settings{Restarts: 2, Probes: 3, Final: 4, NeutralSymbols: 2, Patience: 20, ProbePatience: 3, NeutralPatience: 50}
	for r, want := range map[int]int{6: 0, 7: 1, 8: -1, 9: 0, 4: -1, 1: 0} {
		if got := startOf(set, r).Neutral; got != want {
			t.Errorf("start %d: neutral symbol %d, want %d", r, got, want)
		}
	}
	if (startOf(set, 6).Kind == ProbeStart) || !(startOf(set, 5).Kind == ProbeStart) || (startOf(set, 5).Kind == FinalStart) || !(startOf(set, 6).Kind == FinalStart) {
		t.Error("the final starts are probes, or a probe is final")
	}
	if p := startOf(set, 8).Patience; p != 50 {
		t.Errorf("final start 8 (no symbol): patience %d, want NeutralPatience", p)
	}
	if set.NeutralPatience = 0; startOf(set, 6).Patience != 20 {
		t.Errorf("final start without NeutralPatience: patience %d, want Patience", startOf(set, 6).Patience)
	}
}

// TestFinalNeutralWeight: FinalNeutralWeight weighs the neutral prior on
// the final starts only. Equal to NeutralWeight it changes nothing; larger,
// it leaves every epoch before the first final start as it was and changes
// the epochs of the final starts.
func TestFinalNeutralWeight(t *testing.T) {
	run := func(final float64) *cpLog {
		_, env := twinEnv(t, nil)
		env.Obj = &Objective{NeutralWeight: 0.5, FinalNeutralWeight: final}
		set := twinSettings(0.02, 30)
		set.Polish, set.Final, set.NeutralSymbols = 3, 3, 2
		l := &cpLog{}
		if _, err := Run(context.Background(), env, set, l, nil); err != nil {
			t.Fatal(err)
		}
		return l
	}
	base, same, more := run(0), run(0.5), run(3)
	from := base.cps[len(base.cps)-1].FinalFrom
	if from == 0 || more.cps[len(more.cps)-1].FinalFrom != from {
		t.Fatalf("final starts from epoch %d and %d: the test checks nothing", from, more.cps[len(more.cps)-1].FinalFrom)
	}
	a, _ := json.Marshal(base.metricsLog)
	b, _ := json.Marshal(same.metricsLog)
	if string(a) != string(b) {
		t.Error("FinalNeutralWeight equal to NeutralWeight changed the run")
	}
	a, _ = json.Marshal(base.metricsLog[:from-1])
	b, _ = json.Marshal(more.metricsLog[:from-1])
	if string(a) != string(b) {
		t.Error("FinalNeutralWeight changed the epochs before the final starts")
	}
	a, _ = json.Marshal(base.metricsLog[from-1])
	b, _ = json.Marshal(more.metricsLog[from-1])
	if string(a) == string(b) {
		t.Errorf("FinalNeutralWeight 3 left the first final epoch (%d) as it was", from)
	}
}

// counted is a curriculum that counts its epochs in its JSON state.
type counted struct{ Done int }

func (c *counted) Name() string { return "counted" }
func (c *counted) Next(*Report) (Phase, bool) {
	c.Done++
	return Phase{MaxLen: 100, Stochastic: true}, true
}

// TestPolishStart: the polishing start begins from the best weights, the
// heads' weights 0, the rate's factor 1 and a fresh curriculum, once the
// long starts and probes have ended with imperfect weights.
func TestPolishStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	obj := &Objective{Next: NewHead(3, 4, 0.1, rng)}
	params := []float64{9, 9, 9}
	cur := &counted{Done: 7}
	fresh, _ := json.Marshal(&counted{})
	st := &runState{cp: Checkpoint{Epoch: 40, Finished: true,
		Selection: &Selection{Epoch: 12, Errors: 0.1, SinceBest: 5, Params: []float64{1, 2, 3}}}}
	runnerOf := func(set Settings) *runner {
		return &runner{env: Env{Obj: obj}, set: set, sc: newSchedule(set), st: st, params: params, fresh: fresh}
	}
	set := Settings{Curriculum: cur, Patience: 2, Polish: 4, MaxEpochs: 100}
	more := set
	more.Restarts = 1
	if _, ok, err := runnerOf(more).next(); ok || err != nil || st.cp.PolishFrom != 0 {
		t.Fatalf("a run with a restart to go went on (%v, %v) or polished (from %d)", ok, err, st.cp.PolishFrom)
	}
	s, ok, err := runnerOf(set).next()
	if err != nil || !ok || s.Kind != PolishStart {
		t.Fatalf("an imperfect run with Polish goes on with %+v (%v, %v), not the polish", s, ok, err)
	}
	sel := st.cp.Selection
	switch {
	case params[0] != 1 || params[2] != 3:
		t.Errorf("params %v, want the best", params)
	case slices.ContainsFunc(obj.Next.Params, func(w float64) bool { return w != 0 }):
		t.Error("the heads' weights are not 0")
	case sel.SinceBest != 0 || st.cp.Finished || st.cp.PolishFrom != 41:
		t.Errorf("since best %d, finished %v, polish from %d", sel.SinceBest, st.cp.Finished, st.cp.PolishFrom)
	case cur.Done != 0:
		t.Errorf("curriculum at %d: not fresh", cur.Done)
	case s.Neutral != -1 || newSchedule(Settings{NeutralSymbols: 2, Polish: 4}).polishStart(0).Neutral != -1:
		t.Error("the polish has a neutral symbol")
	}
	st.cp.Epoch, st.cp.Finished = 45, true
	if _, ok, _ := runnerOf(set).next(); ok || st.cp.PolishFrom != 41 {
		t.Errorf("a polished run goes on (%v), or polishes again (from %d)", ok, st.cp.PolishFrom)
	}
}

// startOf is start r of set's plan (not the polish).
func startOf(set Settings, r int) Start { return newSchedule(set).start(r) }
