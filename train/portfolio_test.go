package train

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/nn/nntest"
)

// firstSymbolEnv is a net and a language a start learns in a few epochs
// from good weights (a string's label is whether it begins with the first
// symbol), with a select split of longer strings. Its own weights, start
// 0's, and those Init draws for the starts in bad are saturated (scale 30),
// so that those starts fail and the run's winner is a later one.
func firstSymbolEnv(t *testing.T, bad ...int) Env {
	rng := rand.New(rand.NewPCG(7, 1))
	label := func(exs []Example) []Example {
		for i := range exs {
			exs[i].Label = 0
			if exs[i].Syms[0] == 0 {
				exs[i].Label = 1
			}
		}
		return exs
	}
	exs := label(randomExamples(rng, 2, 24, 4))
	sel := label(randomExamples(rng, 2, 12, 7))
	net := testNet(t, nspda.Third, 2, 3, 5)
	fill := func(seed uint64, scale float64) {
		nntest.FillNormal(net.Params(), seed, 1)
		for i := range net.Params() {
			net.Params()[i] *= scale
		}
	}
	fill(5, 30)
	env := runnerEnv(net, exs, exs[:6])
	env.Select = sel
	env.Init = func(r int) error {
		scale := 1.0
		if slices.Contains(bad, r) {
			scale = 30
		}
		fill(uint64(10+r), scale)
		return nil
	}
	return env
}

// portfolioSettings are Adam at 0.2 on batches of 4, patience 3 (probes
// 1), MaxEpochs 200 and a fresh curriculum.
func portfolioSettings(restarts, probes int) Settings {
	return Settings{Estimator: &BPTT{}, Curriculum: &phases{n: 100}, Refine: 1, MaxEpochs: 200,
		Schedule: Schedule{LR0: 0.2}, Optimizer: "adam", Batch: 4, Seed: 3, Patience: 3,
		Restarts: restarts, Probes: probes, ProbePatience: 1}
}

// portfolioRun is a run of RunPortfolio on workers goroutines over the envs
// of env() and the settings of set(), from the checkpoint from (nil: a new
// run), cancelled after its checkpoint number stop (0: never); it returns
// the run's checkpoints and metrics, its result and its net's weights.
func portfolioRun(t *testing.T, env func() Env, set func() Settings, workers int, from *Checkpoint, stop int) (*cpLog, Result, []float64, error) {
	t.Helper()
	return freshRun(t, func(bool) (Env, Settings, error) { return env(), set(), nil }, workers, from, stop)
}

// freshRun is portfolioRun over the envs and settings of fresh.
func freshRun(t *testing.T, fresh Fresh, workers int, from *Checkpoint, stop int) (*cpLog, Result, []float64, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l := &stopLog{cpLog: cpLog{cancel: cancel}, after: stop}
	main, set, err := fresh(false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunPortfolio(ctx, main, set, fresh, workers, l, from)
	return &l.cpLog, res, slices.Clone(main.Net.Params()), err
}

// stopLog is a cpLog that cancels its run after its after-th checkpoint
// (0: never).
type stopLog struct {
	cpLog
	after int
}

func (l *stopLog) Checkpoint(c *Checkpoint) error {
	if err := l.cpLog.Checkpoint(c); err != nil {
		return err
	}
	if len(l.cps) == l.after {
		l.cancel()
	}
	return nil
}

// mustJSON is v's JSON.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPortfolioWorkers: a portfolio whose first starts fail (saturated
// weights) and a later one passes selection records the same epochs and
// ends with the same weights on 1, 2 and 3 workers; its winner is the
// first start in order that passes, and no start after it is recorded.
func TestPortfolioWorkers(t *testing.T) {
	env := func() Env { return firstSymbolEnv(t, 1, 2) }
	set := func() Settings { return portfolioSettings(6, 4) }
	var want string
	var wantParams []float64
	for _, workers := range []int{1, 2, 3} {
		l, res, params, err := portfolioRun(t, env, set, workers, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := mustJSON(t, l.metricsLog)
		if workers == 1 {
			want, wantParams = got, params
			last := l.metricsLog[len(l.metricsLog)-1]
			t.Logf("%d epochs, winner start %d, score %v", len(l.metricsLog), last.Start, res.SelectErrors)
			if res.SelectErrors != 0 || last.Start < 3 {
				t.Fatalf("the winner is start %d (score %v): want a start after the failing 0–2", last.Start, res.SelectErrors)
			}
			for i, m := range l.metricsLog {
				if m.Epoch != i+1 || i > 0 && m.Start < l.metricsLog[i-1].Start {
					t.Fatalf("epoch line %d: epoch %d of start %d, not in order", i+1, m.Epoch, m.Start)
				}
			}
			continue
		}
		if got != want {
			t.Errorf("%d workers: the metrics differ from 1 worker's:\n%s\n%s", workers, got, want)
		}
		if d, at := relDiff(params, wantParams); d != 0 {
			t.Errorf("%d workers: the weights differ (parameter %d)", workers, at)
		}
	}
}

// TestPortfolioStartAlone: a start's epochs in a portfolio are those it
// trains alone, whichever starts ran before it (here none, and in the run
// the failing ones), counted on from the epochs and characters before it.
func TestPortfolioStartAlone(t *testing.T) {
	env := func() Env { return firstSymbolEnv(t, 1, 2) }
	set := func() Settings { return portfolioSettings(6, 4) }
	l, _, _, err := portfolioRun(t, env, set, 2, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{2, 3} {
		p := &portfolio{set: set(), workers: 1, fresh: func(bool) (Env, Settings, error) { return env(), set(), nil }}
		out := p.train(context.Background(), startOf(p.set, k), nil)
		if out.err != nil {
			t.Fatal(out.err)
		}
		var in []Metrics
		for _, m := range l.metricsLog {
			if m.Start == k {
				in = append(in, m)
			}
		}
		if len(in) == 0 || len(in) != len(out.metrics) {
			t.Fatalf("start %d: %d epochs in the run, %d alone", k, len(in), len(out.metrics))
		}
		e0, c0 := in[0].Epoch-1, in[0].Chars-out.metrics[0].Chars
		for i, m := range out.metrics {
			m.Epoch, m.Chars, m.Start = m.Epoch+e0, m.Chars+c0, k
			if mustJSON(t, m) != mustJSON(t, in[i]) {
				t.Errorf("start %d, epoch %d: alone %+v, in the run %+v", k, i+1, m, in[i])
			}
		}
	}
}

// TestPortfolioResume: a portfolio that no start passes (one string
// carries both labels) runs every start, its polish and its final starts;
// killed after each of several commits and resumed from its last
// checkpoint, on another number of workers, it ends as the run that was
// not killed, epoch for epoch and weight for weight.
func TestPortfolioResume(t *testing.T) {
	env := func() Env {
		_, e := twinEnv(t, nil)
		return e
	}
	set := func() Settings {
		s := portfolioSettings(2, 3)
		s.Polish, s.Final = 3, 2
		return s
	}
	full, res, params, err := portfolioRun(t, env, set, 2, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	starts := map[int]bool{}
	for _, m := range full.metricsLog {
		starts[m.Start] = true
	}
	if res.SelectErrors == 0 || len(full.cps) < 5 || !starts[7] {
		t.Fatalf("score %v, %d commits, starts %v: want no winner and every start with the final ones", res.SelectErrors, len(full.cps), starts)
	}
	for _, stop := range []int{1, 3, len(full.cps) - 2} {
		killed, _, _, err := portfolioRun(t, env, set, 3, nil, stop)
		if err == nil {
			t.Fatalf("the run killed after commit %d ended", stop)
		}
		cp := killed.cps[stop-1]
		l, res2, params2, err := portfolioRun(t, env, set, 1, cp, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := mustJSON(t, append(slices.Clone(killed.metricsLog[:cp.Epoch]), l.metricsLog...))
		if want := mustJSON(t, full.metricsLog); got != want {
			t.Errorf("killed after commit %d (epoch %d) and resumed: the metrics differ:\n%s\n%s", stop, cp.Epoch, got, want)
		}
		if d, at := relDiff(params2, params); d != 0 || res2 != res {
			t.Errorf("killed after commit %d and resumed: parameter %d differs; results %+v, %+v", stop, at, res2, res)
		}
	}
}

// TestPortfolioStartEpochs: with StartEpochs and ProbeEpochs a portfolio
// that no start passes ends each long or final start after at most
// StartEpochs epochs and each probe after ProbeEpochs, and each start's
// epochs are the first ones of the same start without the bounds (a bound
// cuts a start, it changes none of its epochs); on 1 and 2 workers alike.
func TestPortfolioStartEpochs(t *testing.T) {
	env := func() Env {
		_, e := twinEnv(t, nil)
		return e
	}
	loose := func() Settings {
		s := portfolioSettings(2, 3)
		s.Patience, s.ProbePatience, s.Final, s.MaxEpochs = 12, 6, 2, 400
		return s
	}
	bound := func() Settings {
		s := loose()
		s.StartEpochs, s.ProbeEpochs = 4, 2
		return s
	}
	free, _, _, err := portfolioRun(t, env, loose, 2, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, workers := range []int{1, 2} {
		l, res, _, err := portfolioRun(t, env, bound, workers, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if res.SelectErrors == 0 {
			t.Fatal("a start passed selection: want a run of every start")
		}
		got := mustJSON(t, l.metricsLog)
		if workers == 2 {
			if got != want {
				t.Errorf("2 workers: the metrics differ from 1 worker's:\n%s\n%s", got, want)
			}
			continue
		}
		want = got
		kinds := map[int]StartKind{}
		for s := range bound().Starts() {
			if !s.FromBest {
				kinds[s.Index] = s.Kind
			}
		}
		cut, runs := 0, splitStarts(l.metricsLog)
		freeRuns := map[int][]Metrics{}
		for _, r := range splitStarts(free.metricsLog) {
			freeRuns[r[0].Start] = r
		}
		for _, r := range runs {
			k := r[0].Start
			limit := 4
			if kinds[k] == ProbeStart {
				limit = 2
			}
			if len(r) > limit {
				t.Errorf("start %d (kind %d): %d epochs, want at most %d", k, kinds[k], len(r), limit)
			}
			f := freeRuns[k]
			if len(f) > len(r) {
				cut++
			}
			for i := range min(len(r), len(f)) {
				if r[i].Loss != f[i].Loss || r[i].TrainAcc != f[i].TrainAcc || *r[i].SelectAcc != *f[i].SelectAcc {
					t.Errorf("start %d, its epoch %d: %+v bounded, %+v free", k, i+1, r[i], f[i])
				}
			}
		}
		if cut == 0 {
			t.Error("no start was cut: the bounds are not tested")
		}
		t.Logf("%d epochs in %d starts, %d cut (free: %d epochs)", len(l.metricsLog), len(runs), cut, len(free.metricsLog))
	}
}

// splitStarts splits a portfolio's metrics into its starts' runs of epochs
// (a polish, which keeps the index of the start before it, joins that
// start's run: the runs here have none).
func splitStarts(ms []Metrics) [][]Metrics {
	var runs [][]Metrics
	for i, m := range ms {
		if i == 0 || m.Start != ms[i-1].Start {
			runs = append(runs, nil)
		}
		runs[len(runs)-1] = append(runs[len(runs)-1], m)
	}
	return runs
}

// TestPortfolioFinish: with Settings.Finish every start that ends near a
// fit (here every start: the twin strings keep each from perfect) goes on
// from its best weights on the superposition stack, at the finish's rate
// and sharpness, for at most Patience epochs, its own epochs the same as
// without the finish; with a bound below every start's score nothing
// changes. The run is the same on 1 and 2 workers and after a kill and a
// resume.
func TestPortfolioFinish(t *testing.T) {
	const rate, beta = 0.05, 5
	fresh := func(near float64) Fresh {
		return func(soft bool) (Env, Settings, error) {
			net, env := twinEnv(t, nil)
			s := portfolioSettings(2, 3)
			s.Patience, s.ProbePatience, s.Final, s.MaxEpochs = 6, 3, 1, 400
			s.StartEpochs, s.ProbeEpochs = 4, 2
			s.Finish = Finish{Near: near, Rate: rate, Beta: beta}
			if soft {
				net.SoftStack = true
				net.Reserve(40)
				s.SoftStackBeta0 = 1
			}
			return env, s, nil
		}
	}
	plain, _, _, err := freshRun(t, fresh(0), 2, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	tiny, _, _, err := freshRun(t, fresh(1e-9), 2, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mustJSON(t, tiny.metricsLog), mustJSON(t, plain.metricsLog); got != want {
		t.Errorf("a finish no start comes near changed the run:\n%s\n%s", got, want)
	}
	full, res, params, err := freshRun(t, fresh(2), 2, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.SelectErrors == 0 {
		t.Fatal("a start passed selection: want a run of every start")
	}
	plainRuns := map[int][]Metrics{}
	for _, r := range splitStarts(plain.metricsLog) {
		plainRuns[r[0].Start] = r
	}
	finished := 0
	for _, r := range splitStarts(full.metricsLog) {
		k := r[0].Start
		own := plainRuns[k]
		if len(r) <= len(own) {
			t.Errorf("start %d: %d epochs, %d without the finish: not finished", k, len(r), len(own))
			continue
		}
		for i, m := range r {
			if i < len(own) {
				if m.Finish || m.Loss != own[i].Loss || m.TrainAcc != own[i].TrainAcc {
					t.Errorf("start %d, its epoch %d: %+v with the finish, %+v without", k, i+1, m, own[i])
				}
				continue
			}
			if !m.Finish || m.LR != rate || m.Beta != beta {
				t.Errorf("start %d, finish epoch %d: finish %v, rate %v, sharpness %v; want true, %v, %v", k, i-len(own)+1, m.Finish, m.LR, m.Beta, rate, beta)
			}
		}
		if n := len(r) - len(own); n > 6 {
			t.Errorf("start %d: %d finish epochs, want at most the patience, 6", k, n)
		}
		finished++
	}
	if finished < 3 {
		t.Errorf("%d starts finished: the test checks too little", finished)
	}
	one, _, params1, err := freshRun(t, fresh(2), 1, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mustJSON(t, one.metricsLog), mustJSON(t, full.metricsLog); got != want {
		t.Errorf("1 worker: the metrics differ from 2 workers':\n%s\n%s", got, want)
	}
	if d, at := relDiff(params1, params); d != 0 {
		t.Errorf("1 worker: parameter %d differs from 2 workers'", at)
	}
	stop := 2
	killed, _, _, err := freshRun(t, fresh(2), 2, nil, stop)
	if err == nil {
		t.Fatalf("the run killed after commit %d ended", stop)
	}
	cp := killed.cps[stop-1]
	l, _, params2, err := freshRun(t, fresh(2), 2, cp, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mustJSON(t, append(slices.Clone(killed.metricsLog[:cp.Epoch]), l.metricsLog...)), mustJSON(t, full.metricsLog); got != want {
		t.Errorf("killed after commit %d and resumed: the metrics differ", stop)
	}
	if d, at := relDiff(params2, params); d != 0 {
		t.Errorf("killed and resumed: parameter %d differs", at)
	}
}

// TestWidenHead: a head widened over a state with more values (the
// superposition stack's cells, after the rest) keeps each output's weights
// on the first values and its bias, with 0 on the new values, so its logits
// on a state whose new values are 0 are the same.
func TestWidenHead(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const c, s, wide = 3, 5, 9
	h := NewHead(c, s, 1, rng)
	for i := range h.Params[c*s:] {
		h.Params[c*s+i] = float64(i + 1)
	}
	w := &Head{C: c, S: wide, Params: widenHead(h.Params, c, wide), u: make([]float64, c)}
	state := make([]float64, wide)
	for i := range s {
		state[i] = rng.NormFloat64()
	}
	h.logits(state, s)
	w.logits(state, wide)
	if !slices.Equal(h.u, w.u) {
		t.Errorf("logits %v, widened %v", h.u, w.u)
	}
	for i := range c {
		if !slices.Equal(w.Params[i*wide+s:(i+1)*wide], make([]float64, wide-s)) {
			t.Errorf("output %d: weights on the new values %v, want 0", i, w.Params[i*wide+s:(i+1)*wide])
		}
	}
	if same := widenHead(h.Params, c, s); !slices.Equal(same, h.Params) {
		t.Error("widened to its own size, the head changed")
	}
}
