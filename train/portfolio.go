package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"golang.org/x/sync/errgroup"
)

// Fresh builds what one start of a portfolio trains: a net, heads and
// classifiers of its own (the net with start 0's initial weights, Init
// drawing those of the others) over the run's data, which every start
// shares and none changes, and settings with an estimator and a curriculum
// of their own. With soft (a start's finish, Settings.Finish) the net has
// the superposition stack's cells, and the settings a sharpness
// (SoftStackBeta0), whether or not the run's net has them; the weights
// have the same layout either way.
type Fresh func(soft bool) (Env, Settings, error)

// Portfolio is how far a portfolio run has come: the starts of its plan
// (Settings.Starts) before Next are committed or passed over.
type Portfolio struct {
	Next int `json:"next"`
	// MainEpochs are the epochs of the committed long starts and probes,
	// FinalEpochs those of the committed final starts: each group has
	// MaxEpochs.
	MainEpochs  int `json:"main_epochs"`
	FinalEpochs int `json:"final_epochs,omitempty"`
}

// RunPortfolio runs the starts of set (Settings.Starts, with Patience) as
// a portfolio: each start is independent of the others, on an Env and
// Settings of its own from fresh, with random streams drawn from the seed
// and its index alone, a patience of its own (Start.Own does not matter)
// and at most MaxEpochs epochs; up to workers starts train at once. The
// starts are committed in the plan's order: a committed start's epochs are
// recorded (Metrics.Start its index, the epochs and characters counted on
// from the committed ones) and the run checkpointed, its best weights kept
// if they rank above the best so far (ties: the earlier). The run ends at
// the first start whose best weights pass selection (perfect on the
// training and select sets): starts after it are cancelled. The long
// starts and probes are taken while their committed epochs are fewer than
// MaxEpochs, the final starts likewise; the polish (FromBest) waits for
// every start before it. So the metrics, the checkpoints and the weights
// depend on set and fresh only, never on workers or timing. A start in
// flight when ctx is cancelled is lost; from, the last checkpoint, resumes
// the run after its committed starts. env's net gets the weights kept.
func RunPortfolio(ctx context.Context, env Env, set Settings, fresh Fresh, workers int, rec Recorder, from *Checkpoint) (Result, error) {
	if set.Patience <= 0 {
		return Result{}, errors.New("a portfolio of starts needs patience (its starts end by selection)")
	}
	p := &portfolio{env: env, set: set, fresh: fresh, workers: max(1, workers), rec: rec,
		plan: slices.Collect(set.Starts())}
	if err := p.restore(from); err != nil {
		return Result{}, err
	}
	if err := p.run(ctx); err != nil {
		return Result{}, err
	}
	return resultOf(&p.cp, set, env.Net.Params()), nil
}

// portfolio is a portfolio run in progress: cp is its committed state.
type portfolio struct {
	env     Env
	set     Settings
	fresh   Fresh
	workers int
	rec     Recorder
	plan    []Start
	cp      Checkpoint
}

// outcome is what one start of a portfolio did: its epochs' metrics and
// seconds, its last state (epochs counted from its first), or its error.
type outcome struct {
	metrics []Metrics
	seconds []float64
	cp      Checkpoint
	err     error
}

// slot is a start in flight or done, not yet committed.
type slot struct {
	done   bool
	out    outcome
	cancel context.CancelFunc
}

// restore sets the committed state from the checkpoint from (nil: none).
func (p *portfolio) restore(from *Checkpoint) error {
	p.cp = Checkpoint{Selection: &Selection{Errors: math.Inf(1)}, Portfolio: &Portfolio{}}
	if from == nil {
		return nil
	}
	n := len(p.env.Net.Params())
	switch {
	case from.Portfolio == nil || from.Selection == nil:
		return mismatch("it is not a portfolio run's")
	case len(from.Params) != n:
		return mismatch(fmt.Sprintf("it has %d parameters, the run's model %d", len(from.Params), n))
	case from.Selection.Params != nil && len(from.Selection.Params) != n:
		return mismatch(fmt.Sprintf("its best weights have %d parameters, the run's model %d", len(from.Selection.Params), n))
	}
	p.cp = *from
	p.cp.Params = nil
	return nil
}

// run trains and commits the starts from the first not committed until
// the run is over. The start to commit next is awaited; meanwhile the
// starts after it are launched, in order, on the workers free, except a
// polish, which waits until every start before it is committed.
func (p *portfolio) run(ctx context.Context) error {
	if p.advance() {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	var g errgroup.Group
	defer func() {
		cancel()
		_ = g.Wait() // the starts return no error of their own: their outcomes hold them
	}()
	finished := make(chan int, len(p.plan)) // never blocks a start
	slots := map[int]*slot{}
	launched, running := 0, 0
	for {
		next := p.cp.Portfolio.Next
		for launched = max(launched, next); running < p.workers && launched < len(p.plan) &&
			(!p.plan[launched].FromBest || launched == next); launched++ {
			slots[launched] = p.launch(ctx, &g, launched, finished)
			running++
		}
		if sl := slots[next]; sl != nil && sl.done {
			// A cancelled run stops at once, as a killed one would, even
			// when the starts it awaits have all finished: committing them
			// would end it as if it had not been cancelled.
			if err := ctx.Err(); err != nil {
				return err
			}
			delete(slots, next)
			over, err := p.commit(p.plan[next], sl.out)
			if err != nil || over {
				return err
			}
			for q, sl := range slots {
				if q < p.cp.Portfolio.Next {
					sl.cancel() // passed over
				}
			}
			continue
		}
		q := <-finished
		running--
		if q < p.cp.Portfolio.Next {
			delete(slots, q)
		} else {
			slots[q].done = true
		}
	}
}

// launch starts training start q of the plan on a goroutine of g, which
// sends q on finished when done.
func (p *portfolio) launch(ctx context.Context, g *errgroup.Group, q int, finished chan<- int) *slot {
	s := p.plan[q]
	sctx, cancel := context.WithCancel(ctx)
	sl := &slot{cancel: cancel}
	var best *Selection
	if s.FromBest {
		best = cloneSelection(p.cp.Selection) // every start before it is committed
	}
	g.Go(func() error {
		defer cancel()
		sl.out = p.train(sctx, s, best)
		finished <- q
		return nil
	})
	return sl
}

// train runs start s alone, from the weights best (FromBest) or its own.
func (p *portfolio) train(ctx context.Context, s Start, best *Selection) (out outcome) {
	env, set, err := p.fresh(false)
	if err != nil {
		return outcome{err: err}
	}
	env.EvalWorkers = max(1, env.EvalWorkers/p.workers)
	log := &startLog{}
	r, err := newRunnerOf(env, set, log, nil, s.Index)
	if err != nil {
		return outcome{err: err}
	}
	if err := r.beginAlone(s, best); err != nil {
		return outcome{err: err}
	}
	for {
		over, err := r.epoch(ctx, s)
		if err != nil {
			return outcome{err: err}
		}
		if over || r.ended(s) || s.Epochs > 0 && r.st.cp.Epoch >= s.Epochs {
			break
		}
	}
	if r, err = p.finish(ctx, r, s, log); err != nil {
		return outcome{err: err}
	}
	return outcome{metrics: log.metrics, seconds: log.seconds, cp: r.st.cp}
}

// finish finishes start s, which r trained, when it ended near a fit
// (Settings.Finish): it returns the runner of the finish, which goes on
// from r's state on a net of Fresh(true), else r.
func (p *portfolio) finish(ctx context.Context, r *runner, s Start, log *startLog) (*runner, error) {
	f, sel := p.set.Finish, r.st.cp.Selection
	if f.Near <= 0 || s.FromBest || sel == nil || sel.Params == nil || sel.Errors == 0 || sel.Errors > f.Near {
		return r, nil
	}
	from, err := r.snapshot()
	if err != nil {
		return nil, err
	}
	copy(from.Params, sel.Params)
	from.Adam, from.Finished = nil, false // fresh moments
	from.Selection = cloneSelection(sel)
	from.Selection.SinceBest = 0
	env, set, err := p.fresh(true)
	if err != nil {
		return nil, err
	}
	env.EvalWorkers = r.env.EvalWorkers
	for i, h := range env.Obj.Heads() {
		from.Heads[i] = widenHead(from.Heads[i], h.C, h.S)
	}
	fr, err := newRunnerOf(env, set, log, from, s.Index)
	if err != nil {
		return nil, err
	}
	fs := Start{Kind: FinishStart, Index: s.Index, Patience: p.set.Patience, Neutral: -1, Soft: true, Rate: f.Rate, Beta: f.Beta}
	for range p.set.Patience {
		over, err := fr.epoch(ctx, fs)
		if err != nil {
			return nil, err
		}
		if over || fr.st.cp.Finished {
			break
		}
	}
	return fr, nil
}

// widenHead is a head's parameters w (c outputs over a state of the length
// w has) over a state of s values: each output's weights on the first
// values of the state kept, 0 on the values added (the superposition
// stack's cells, which follow the rest of the state), the biases kept.
func widenHead(w []float64, c, s int) []float64 {
	old := len(w)/c - 1
	out := make([]float64, c*s+c)
	for i := range c {
		copy(out[i*s:i*s+min(old, s)], w[i*old:i*old+min(old, s)])
	}
	copy(out[c*s:], w[c*old:])
	return out
}

// beginAlone begins start s of a portfolio in a runner of its own: from
// Env.Init(s.Index) (start 0: the net's own weights), or with FromBest from
// best, its selection starting from best's score, with the heads' weights
// 0. Its epochs count from 0, and so its budget (outOfEpochs).
func (r *runner) beginAlone(s Start, best *Selection) error {
	cp := &r.st.cp
	switch {
	case s.FromBest:
		*cp.Selection = *best
		cp.Selection.Epoch = 0 // an epoch of its own that beats best sets it
		copy(r.params, best.Params)
		for _, h := range r.env.Obj.Heads() {
			clear(h.Params)
		}
		cp.PolishFrom = 1
	case s.Index > 0:
		if r.env.Init == nil {
			return fmt.Errorf("restarts need an initializer")
		}
		if err := r.env.Init(s.Index); err != nil {
			return err
		}
	}
	if s.Kind == FinalStart {
		cp.FinalFrom = 1
	}
	cp.Restart = s.Index
	return r.st.begin(r.set, r.fresh)
}

// commit commits start s, which ended with out: it records its epochs,
// keeps its best weights if they rank above the best so far, passes over
// the starts the run will not take, and checkpoints. over: the run is.
func (p *portfolio) commit(s Start, out outcome) (over bool, err error) {
	if out.err != nil {
		return false, out.err
	}
	cp, o := &p.cp, &out.cp
	for i, m := range out.metrics {
		m.Epoch += cp.Epoch
		m.Chars += cp.Chars
		m.Start = s.Index
		if err := p.rec.Epoch(m, out.seconds[i]); err != nil {
			return false, err
		}
	}
	if o.Converged && !cp.Converged {
		cp.Converged, cp.ConvergedEpoch, cp.ConvergedChars = true, cp.Epoch+o.ConvergedEpoch, cp.Chars+o.ConvergedChars
	}
	p.keep(o, cp.Epoch)
	cp.Epoch += o.Epoch
	cp.Chars += o.Chars
	switch pf := cp.Portfolio; s.Kind {
	case FinalStart:
		pf.FinalEpochs += o.Epoch
	case LongStart, ProbeStart:
		pf.MainEpochs += o.Epoch
	}
	cp.Portfolio.Next++
	over = p.advance()
	if cp.Selection.Params == nil {
		return over, nil // nothing to checkpoint yet (and +Inf has no JSON)
	}
	cp.Params = p.env.Net.Params() // the shape a resumed run checks
	err = p.rec.Checkpoint(cp)
	cp.Params = nil
	return over, err
}

// keep takes the best weights of a start whose epochs followed epoch base
// (its selection's and, with KeepBest, its validation's) where they rank
// above the best so far.
func (p *portfolio) keep(o *Checkpoint, base int) {
	best := p.cp.Selection
	if sel := o.Selection; sel != nil && sel.Params != nil && sel.Epoch > 0 && (best.Params == nil || best.beatenBy(sel.Errors)) {
		p.cp.Selection = &Selection{Epoch: base + sel.Epoch, Errors: sel.Errors, TrainAcc: sel.TrainAcc,
			Params: slices.Clone(sel.Params)}
	}
	if b := o.Best; b != nil && p.cp.Best.beatenBy(b.ValidAcc, b.TrainAcc) {
		p.cp.Best = &Best{Epoch: base + b.Epoch, ValidAcc: b.ValidAcc, TrainAcc: b.TrainAcc, Params: slices.Clone(b.Params)}
	}
}

// advance passes over the starts from Portfolio.Next on that the run will
// not take, and reports whether it is over: its best weights pass
// selection; its plan is done; its final starts have used their MaxEpochs;
// or its long starts and probes have, with no final starts to take (the
// polish follows them only then, as in Run).
func (p *portfolio) advance() (over bool) {
	pf, sel := p.cp.Portfolio, p.cp.Selection
	if sel.Params != nil && sel.Errors == 0 {
		return true
	}
	for ; pf.Next < len(p.plan); pf.Next++ {
		switch s := p.plan[pf.Next]; {
		case s.Kind == FinalStart && pf.FinalEpochs >= p.set.MaxEpochs:
			return true
		case s.Kind < PolishStart && pf.MainEpochs >= p.set.MaxEpochs:
			if p.set.Final <= 0 {
				return true
			}
		case s.FromBest && sel.Params == nil:
		default:
			return false
		}
	}
	return true
}

// cloneSelection is a deep copy of sel.
func cloneSelection(sel *Selection) *Selection {
	c := *sel
	c.Params = slices.Clone(sel.Params)
	c.StartBest = nil
	return &c
}

// startLog keeps a start's epochs until it is committed.
type startLog struct {
	metrics []Metrics
	seconds []float64
}

func (l *startLog) Epoch(m Metrics, seconds float64) error {
	l.metrics, l.seconds = append(l.metrics, m), append(l.seconds, seconds)
	return nil
}

func (l *startLog) Checkpoint(*Checkpoint) error { return nil }
