package experiment

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/nspda/nspda/internal/atomicfile"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/internal/jsonerr"
	"github.com/nspda/nspda/internal/limits"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/program"
	"github.com/nspda/nspda/train"
)

// Summary is a finished run's summary.json.
type Summary struct {
	Key             string            `json:"key"`
	Config          Config            `json:"config"`
	Converged       bool              `json:"converged"`
	Epochs          int               `json:"epochs"`            // to convergence, or all run
	Chars           int64             `json:"chars"`             // input symbols presented, to convergence or in all
	CharsToConverge *int64            `json:"chars_to_converge"` // null if not converged
	TrainErrorPct   float64           `json:"train_error_pct"`
	SelectedEpoch   int               `json:"selected_epoch,omitempty"` // with keep_best: the epoch whose weights were kept
	Sets            []evaluate.Result `json:"sets"`
	J               int               `json:"J,omitempty"` // nspda state neurons
	Params          int               `json:"params"`
	Algorithm       string            `json:"algorithm"`
	WallSeconds     float64           `json:"wall_seconds"` // wall time over every session of the run (an epoch lost to a kill is not counted)
	// WideFrom (size rule "both") is the first (small-size) phase's epochs
	// when no start of it passed selection and the wide phase ran after it;
	// SizeRule is then the rule of the net the run kept: "wide", or the
	// first phase's, "paper" (third order: the paper's rule) or "small"
	// (second order; Config.FirstSize).
	WideFrom int    `json:"wide_from,omitempty"`
	SizeRule string `json:"size_rule,omitempty"`
}

// Progress is told about every epoch.
type Progress func(m train.Metrics, seconds float64)

// Files of a run directory.
const (
	ConfigFile     = "config.json"
	MetricsFile    = "metrics.jsonl"
	timingFile     = "timing.jsonl"
	CheckpointFile = "checkpoint.json"
	// paperSizeFile is the paper-size phase's last checkpoint in a run of
	// the size rule "both" while its wide phase runs.
	paperSizeFile = "paper-size.json"
	ModelFile     = "model.json"
	SummaryFile   = "summary.json"
)

// Train runs cfg into dir (created if needed) and returns its summary. With
// resume, it continues from dir's checkpoint and config, ignoring cfg, on
// the language of the copy of its spec file the run keeps (GrammarFile)
// and with cfg's Workers; a
// finished run is not trained again, its summary is returned. Without
// resume, what an earlier run left in dir is removed first. At every moment
// dir holds either a run that can be resumed or a finished one (summary.json
// last; a model.json without it is a finish cut short, removed on resume),
// never a mix, and after Train returns no temporary files. Train holds dir's
// run lock (runLockFile) throughout: a second Train into dir, in this
// process or another, is refused naming the first.
func Train(ctx context.Context, cfg Config, dir string, resume bool, progress Progress) (*Summary, error) {
	start := time.Now()
	if resume {
		unlock, err := lockResumed(dir)
		if err != nil {
			return nil, err
		}
		defer unlock()
		workers := cfg.Workers // how it runs, not what: not in config.json
		if cfg, err = readConfig(dir); err != nil {
			return nil, err
		}
		cfg.Workers = workers
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if resume && exists(filepath.Join(dir, SummaryFile)) {
		removeTemps(dir)
		return finished(dir)
	}
	sr, pin, err := openSizes(cfg, dir, resume)
	if err != nil {
		return nil, err
	}
	if resume {
		removeStale(dir)
		if sr.from, err = readCheckpoint(dir, sr.setup); err != nil {
			return nil, err
		}
	} else {
		unlock, err := freshRunDir(dir, cfg, pin)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	res, prior, err := sr.run(ctx, progress)
	if err != nil {
		return nil, err
	}
	sum, kept, err := sr.summary(cfg, res)
	if err != nil {
		return nil, err
	}
	evalRefine := cfg.EvalRefine
	if evalRefine == 0 {
		evalRefine = cfg.Refine
	}
	sets, err := tests(sr.read, kept.lang)
	if err != nil {
		return nil, err
	}
	if sum.Sets, err = evaluateSets(sets, kept.lang, kept.net, evalRefine, runtime.GOMAXPROCS(0)); err != nil {
		return nil, err
	}
	sum.WallSeconds = prior + time.Since(start).Seconds()
	if err := finishRun(dir, sum, kept.net, evalRefine); err != nil {
		return nil, err
	}
	return sum, nil
}

// sizeRun is a run through its size phases (Config.sizePhases): the
// paper's (or the small) size, then, with the size rule "both" when no
// start of it passed selection, the wide size. The first phase's last
// checkpoint (its best weights, epochs and score) is kept as paperSizeFile
// while the second runs.
type sizeRun struct {
	dir    string
	read   Config // the run's config with its data files' paths as this process reads them
	lang   *grammar.Language
	data   *runData
	phases []Config
	phase  int               // the phase in flight
	first  *train.Checkpoint // the first phase's last checkpoint, once the second runs
	setup  *setup            // the phase's net and settings
	from   *train.Checkpoint // the checkpoint the phase resumes from (nil: none)
}

// openSizes prepares the run of cfg in dir: its language (pin: the copy of
// its spec file a fresh run keeps), its data, and the net and settings of
// the size phase it is in (on resume, the second once paperSizeFile
// exists).
func openSizes(cfg Config, dir string, resume bool) (*sizeRun, []byte, error) {
	sr := &sizeRun{dir: dir, read: cfg}
	var err error
	if resume {
		if sr.read, err = dataPaths(cfg, dir); err != nil {
			return nil, nil, err
		}
	}
	lang, pin, err := runLanguage(sr.read, dir, resume)
	if err != nil {
		return nil, nil, err
	}
	sr.lang, sr.phases = lang, sr.read.sizePhases()
	if resume && len(sr.phases) == 2 && exists(filepath.Join(dir, paperSizeFile)) {
		sr.phase = 1
	}
	if sr.data, err = prepareData(sr.read, lang); err != nil {
		return nil, nil, err
	}
	if sr.setup, err = build(sr.phases[sr.phase], lang, sr.data); err != nil {
		return nil, nil, err
	}
	// The checkpoints are read once the network they are bounded by is
	// built (the paper-size phase's, by the wide one, which is larger).
	if sr.phase == 1 {
		if sr.first, err = readPaperSize(dir, sr.setup); err != nil {
			return nil, nil, err
		}
	}
	return sr, pin, nil
}

// run trains the size phases from the one in flight on, and returns the
// last one's result and the seconds of the epochs before this session.
func (sr *sizeRun) run(ctx context.Context, progress Progress) (res train.Result, prior float64, err error) {
	for session := true; ; session = false {
		rec, err := newDirRecorder(sr.dir, sr.first, sr.from, progress)
		if err != nil {
			return res, 0, err
		}
		if session {
			prior = rec.prior // a second recorder's prior is this session's
		}
		res, err = sr.train(ctx, rec)
		rec.close()
		if errors.Is(err, train.ErrCheckpointMismatch) {
			return res, 0, changedSince(filepath.Join(sr.dir, CheckpointFile), err)
		}
		if err != nil || sr.phase == len(sr.phases)-1 || res.SelectErrors == 0 {
			return res, prior, err
		}
		if err := sr.widen(); err != nil {
			return res, 0, err
		}
	}
}

// train trains the size phase in flight: its starts one after another,
// or with Config.Portfolio as a portfolio on Config.Workers goroutines
// (0: one per core), each start on a net of its own.
func (sr *sizeRun) train(ctx context.Context, rec *dirRecorder) (train.Result, error) {
	cfg := sr.phases[sr.phase]
	if !cfg.Portfolio {
		return train.Run(ctx, sr.setup.env, sr.setup.settings, rec, sr.from)
	}
	fresh := func(soft bool) (train.Env, train.Settings, error) {
		c := cfg
		if soft && c.Option("soft_stack") != true {
			if err := c.Set("soft_stack", true); err != nil {
				return train.Env{}, train.Settings{}, err
			}
		}
		s, err := build(c, sr.lang, sr.data)
		if err != nil {
			return train.Env{}, train.Settings{}, err
		}
		return s.env, s.settings, nil
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	return train.RunPortfolio(ctx, sr.setup.env, sr.setup.settings, fresh, workers, rec, sr.from)
}

// widen ends the first size phase, no start of which passed selection: its
// last checkpoint becomes paperSizeFile (one rename, so that a kill leaves
// either phase whole), and the wide size starts afresh.
func (sr *sizeRun) widen() error {
	if err := os.Rename(filepath.Join(sr.dir, CheckpointFile), filepath.Join(sr.dir, paperSizeFile)); err != nil {
		return err
	}
	var err error
	if sr.first, err = readPaperSize(sr.dir, sr.setup); err != nil {
		return err
	}
	sr.phase, sr.from = 1, nil
	sr.setup, err = build(sr.phases[sr.phase], sr.lang, sr.data)
	return err
}

// summary is the summary of the run of cfg whose last phase ended with res
// (without its test sets and time), and the setup of the net it keeps.
func (sr *sizeRun) summary(cfg Config, res train.Result) (*Summary, *setup, error) {
	sum := &Summary{Key: cfg.Key(), Config: cfg, Converged: res.Converged, Epochs: res.Epochs, Chars: res.Chars,
		TrainErrorPct: 100 - res.TrainAcc, SelectedEpoch: res.Selected, Algorithm: cfg.Algorithm()}
	kept := sr.setup
	if sr.first != nil {
		var err error
		if kept, err = bothSizes(sum, sr.first, res, kept, sr.phases[0], sr.lang, sr.data); errors.Is(err, train.ErrCheckpointMismatch) {
			return nil, nil, changedSince(filepath.Join(sr.dir, paperSizeFile), err)
		} else if err != nil {
			return nil, nil, err
		}
	}
	sum.J, sum.Params = kept.j, len(kept.net.Params())
	if sum.Converged {
		sum.CharsToConverge = &sum.Chars
	}
	return sum, kept, nil
}

// changedSince names a checkpoint that does not fit the run resuming from
// it (err, a train.ErrCheckpointMismatch) and the likely cause.
func changedSince(path string, err error) error {
	msg := strings.TrimPrefix(err.Error(), train.ErrCheckpointMismatch.Error()+": ")
	return fmt.Errorf("%s: %s: the run's config.json or its grammar changed since the checkpoint was written; restore them, or train again into a new directory", path, msg)
}

// bothSizes completes the summary of a run of the size rule "both" whose
// wide phase ran (with result res, on wide), after a first (small-size)
// phase that ended with checkpoint first: the epochs and characters are both phases',
// and the run keeps the wide net only if it scored better on selection than
// the first one, which is then rebuilt (with cfg, its configuration, on the
// run's data) and returned with the weights it selected.
func bothSizes(sum *Summary, first *train.Checkpoint, res train.Result, wide *setup, cfg Config, lang *grammar.Language, data *runData) (*setup, error) {
	sum.WideFrom = first.Epoch
	sum.Converged = first.Converged || res.Converged
	sum.Epochs, sum.Chars = first.Epoch+res.Epochs, first.Chars+res.Chars
	if first.Converged {
		sum.Epochs, sum.Chars = first.ConvergedEpoch, first.ConvergedChars
	}
	sel := first.Selection
	if sel == nil || sel.Params == nil || res.SelectErrors < sel.Errors {
		sum.SizeRule = "wide"
		if sum.SelectedEpoch > 0 {
			sum.SelectedEpoch += first.Epoch
		}
		return wide, nil
	}
	sum.SizeRule = cfg.FirstSize()
	sum.TrainErrorPct, sum.SelectedEpoch = 100-100*sel.TrainAcc, sel.Epoch
	kept, err := build(cfg, lang, data)
	if err != nil {
		return nil, err
	}
	if len(sel.Params) != len(kept.net.Params()) {
		return nil, fmt.Errorf("%w: it has %d parameters, the %s-size net %d", train.ErrCheckpointMismatch, len(sel.Params), sum.SizeRule, len(kept.net.Params()))
	}
	copy(kept.net.Params(), sel.Params)
	return kept, nil
}

// programActions returns cfg with the NSPDA's actions option drawn by its
// action rule "program": the number of action neurons of lang's PDA
// compiled at cfg's order, when that is more than one per symbol and cfg
// gives no actions option of its own.
func programActions(cfg Config, lang *grammar.Language) (Config, error) {
	if cfg.ActionRule != "program" || lang.PDA == nil {
		return cfg, nil
	}
	if a, _ := cfg.Option("actions").(float64); a > 0 {
		return cfg, nil
	}
	prog, err := program.Compile(lang.PDA, program.Options{Order: nspda.Order(cfg.TensorOrder())})
	if err != nil {
		return cfg, fmt.Errorf("action rule program: %v", err)
	}
	if prog.Shape.A <= lang.PDA.L() {
		return cfg, nil
	}
	return cfg, cfg.Set("actions", prog.Shape.A)
}

// setup is a prepared run.
type setup struct {
	lang     *grammar.Language
	net      nn.Model
	j        int
	env      train.Env
	settings train.Settings
}

// prepare builds the data, the network (with its hints) and the settings of
// cfg, deterministically.
func prepare(cfg Config) (*setup, error) {
	lang, err := grammar.Load(cfg.Grammar)
	if err != nil {
		return nil, err
	}
	return prepareWith(cfg, lang)
}

// prepareWith is prepare on the language lang (cfg's grammar, as loaded or
// pinned).
func prepareWith(cfg Config, lang *grammar.Language) (*setup, error) {
	data, err := prepareData(cfg, lang)
	if err != nil {
		return nil, err
	}
	return build(cfg, lang, data)
}

// runData is a run's data: its splits, and their examples with the targets
// the configuration's losses need. It does not depend on the network, so
// the phases of a run of the size rule "both" share it; training reads it
// and does not change it.
type runData struct {
	trainSet, validSet, selSet []dataset.Example
	train, valid, sel          []train.Example // sel: with Patience only
}

// prepareData generates (or reads) cfg's splits on lang and makes their
// examples, with per-step targets from the PDA where cfg's losses need them.
func prepareData(cfg Config, lang *grammar.Language) (*runData, error) {
	trainSet, validSet, selSet, err := splits(cfg, lang)
	if err != nil {
		return nil, err
	}
	var oracle *grammar.Oracle
	if cfg.needsPDA() {
		if oracle, err = grammar.NewOracle(lang.PDA); err != nil {
			return nil, err
		}
	}
	d := &runData{trainSet: trainSet, validSet: validSet, selSet: selSet,
		train: examples(lang, trainSet, cfg), valid: examples(lang, validSet, cfg)}
	addTargets(d.train, cfg, oracle)
	if cfg.Patience > 0 {
		d.sel = examples(lang, selSet, cfg)
	}
	return d, nil
}

// build makes cfg's network (with its hints) and settings on the run's
// data d, deterministically.
func build(cfg Config, lang *grammar.Language, d *runData) (*setup, error) {
	spec, err := model.Lookup(cfg.Model)
	if err != nil {
		return nil, err
	}
	if cfg, err = programActions(cfg, lang); err != nil {
		return nil, err
	}
	initRng := rand.New(rand.NewPCG(cfg.Seed, train.StreamSeed("init")))
	own, err := cfg.options()
	if err != nil {
		return nil, err
	}
	opt := nn.Options{Hidden: cfg.Hidden, Own: own}
	s := &setup{lang: lang}
	var hints *program.Program // the options of models that take hints (the NSPDA's) say so
	if level, h, order := cfg.hints(); level > 0 {
		if hints, err = program.HintProgram(lang.PDA, order, level, h, cfg.Refine); err != nil {
			return nil, err
		}
	}
	if cfg.Data != "" && opt.Hidden == 0 {
		opt.Hidden = dataHidden
		if cfg.Size == "wide" {
			opt.Hidden = wideDataHidden
		}
	}
	if spec.Size != nil {
		if err := s.size(spec, cfg, &opt, initRng, hints); err != nil {
			return nil, err
		}
	}
	if err := model.CheckParams(spec, lang.PDA.Alphabet, opt); err != nil {
		return nil, err
	}
	if s.net, err = spec.New(lang.PDA.Alphabet, opt, initRng); err != nil {
		return nil, err
	}
	if _, ok := s.net.(nn.Actor); !ok {
		switch {
		case cfg.ActionWeight > 0:
			return nil, fmt.Errorf("the action loss applies to models with action neurons (nspda), not %s", cfg.Model)
		case cfg.NeutralWeight > 0:
			return nil, fmt.Errorf("the neutral-symbol prior applies to models with action neurons (nspda), not %s", cfg.Model)
		}
	}
	if err := s.initialize(cfg, s.net.Params(), hints); err != nil {
		return nil, err
	}
	s.env = train.Env{Net: s.net, Train: d.train, Valid: d.valid}
	if t, ok := s.net.(train.Tensored); ok && spec.HigherOrder {
		s.env.Tensors = t.NoiseMatrices()
	}
	evalRefine := cfg.EvalRefine
	if evalRefine == 0 {
		evalRefine = cfg.Refine
	}
	s.env.Classifier = func() evaluate.Classifier { return model.Classifier(s.net, evalRefine) }
	if _, ok := s.net.(nn.ClassifierMaker); ok {
		s.env.EvalWorkers = runtime.GOMAXPROCS(0) // independent classifiers
	}
	seen := slices.Concat(d.trainSet, d.validSet)
	if cfg.Patience > 0 {
		s.env.Select = d.sel
		seen = append(seen, d.selSet...)
	}
	reserve(s.net, seen)
	s.env.Obj = objective(cfg, lang.PDA.L(), s.net.StateSize(), rand.New(rand.NewPCG(cfg.Seed, train.StreamSeed("heads"))))
	s.env.Init = func(r int) error {
		// Restart r draws from its own streams; the shapes are those of
		// the first start (opt holds the J it drew).
		rng := rand.New(rand.NewPCG(cfg.Seed, train.StreamSeed(fmt.Sprintf("init-restart-%d", r))))
		m, err := spec.New(lang.PDA.Alphabet, opt, rng)
		if err != nil {
			return err
		}
		copy(s.net.Params(), m.Params())
		if err := s.initialize(cfg, s.net.Params(), hints); err != nil {
			return err
		}
		for _, h := range s.env.Obj.Heads() {
			h.Init(0.1, rng)
		}
		return nil
	}
	s.settings, err = settings(cfg, s.env.Train)
	if cfg.NeutralWeight > 0 {
		s.settings.NeutralSymbols = s.net.InputSize() - 1 // the alphabet, without the end marker
	}
	return s, err
}

// initialize writes the hint program (if any) into freshly drawn weights.
func (s *setup) initialize(cfg Config, params []float64, hints *program.Program) error {
	if hints == nil {
		return nil
	}
	p, ok := s.net.(program.Programmable)
	if !ok {
		return fmt.Errorf("hints apply to programmable models only, not %s", cfg.Model)
	}
	return hints.Apply(p.Weights())
}

// addTargets sets the per-step targets the configuration's losses need:
// output targets for the final and viable losses, and from the PDA (oracle)
// next-symbol sets and stack operations.
func addTargets(exs []train.Example, cfg Config, oracle *grammar.Oracle) {
	for i := range exs {
		ex := &exs[i]
		n := len(ex.Syms)
		var tg grammar.Targets
		if oracle != nil {
			tg = oracle.Targets(ex.Syms)
		}
		switch cfg.Loss {
		case "final":
			ex.Out = make([]float64, n+1)
			for t := range n {
				ex.Out[t] = math.NaN()
			}
			ex.Out[n] = ex.Label
		case "viable":
			ex.Out = make([]float64, n+1)
			for t, v := range tg.Viable {
				if v {
					ex.Out[t] = 1
				}
			}
		}
		if cfg.NextWeight > 0 {
			ex.Next = tg.Next
		}
		if cfg.ActionWeight > 0 {
			ex.Ops = make([]int8, n)
			for t, op := range tg.Ops {
				ex.Ops[t] = int8(op)
			}
		}
	}
}

// objective builds the loss terms beyond the paper's, with heads over a
// state of size S for an alphabet of L symbols, initialized from the run's
// seed; nil when there are none.
func objective(cfg Config, L, S int, rng *rand.Rand) *train.Objective {
	if cfg.NextWeight == 0 && cfg.LMWeight == 0 && cfg.ActionWeight == 0 && cfg.NeutralWeight == 0 {
		return nil
	}
	obj := &train.Objective{NextWeight: cfg.NextWeight, LMWeight: cfg.LMWeight, ActionWeight: cfg.ActionWeight, NeutralWeight: cfg.NeutralWeight, FinalNeutralWeight: cfg.FinalNeutralWeight}
	if cfg.NextWeight > 0 {
		obj.Next = train.NewHead(L+1, S, 0.1, rng)
	}
	if cfg.LMWeight > 0 {
		obj.LM = train.NewHead(L+1, S, 0.1, rng)
	}
	return obj
}

// size draws the size of a model whose spec has a Size rule when it is not
// given (the NSPDA's J: M + a few, M the PDA's states, by the rule of
// Config.Size) and makes room for the neurons of the hint program, if
// there is one. A run on data files has opt.Hidden set already.
func (s *setup) size(spec nn.Spec, cfg Config, opt *nn.Options, rng *rand.Rand, hints *program.Program) error {
	j := opt.Hidden
	if j == 0 {
		j = spec.Size(s.lang.PDA.M(), *opt, cfg.sizeRule(), rng)
	}
	if hints != nil && j < hints.Shape.J {
		if cfg.Hidden != 0 {
			level, _, _ := cfg.hints()
			return fmt.Errorf("hint %d needs at least %d state neurons, --hidden is %d", level, hints.Shape.J, cfg.Hidden)
		}
		j = hints.Shape.J
	}
	opt.Hidden, s.j = j, j
	return nil
}

// reserve sizes the memory of nets that need it for the longest string of ex.
func reserve(net nn.Model, ex []dataset.Example) {
	r, ok := net.(nn.Reserver)
	if !ok {
		return
	}
	r.Reserve(dataset.MaxLen(ex))
}

func examples(lang *grammar.Language, set []dataset.Example, cfg Config) []train.Example {
	out := make([]train.Example, len(set))
	level, _, _ := cfg.hints()
	dead := cfg.deadHint()
	for i, e := range set {
		syms, _ := lang.PDA.Encode(e.String) // generated strings are over the alphabet
		out[i] = train.Example{Syms: syms, Label: float64(e.Label)}
		out[i].Hinted = program.Hinted(lang.PDA, level, syms) // nil without hint 2
		if dead {
			out[i].DeadAt = program.DiesAt(lang.PDA, syms)
		}
	}
	return out
}

func settings(cfg Config, exs []train.Example) (train.Settings, error) {
	beta0, growth, alternate := cfg.softSchedule()
	lengths := make([]int, len(exs))
	for i, e := range exs {
		lengths[i] = len(e.Syms)
	}
	cur, err := train.NewCurriculum(cfg.Curriculum, lengths)
	if err != nil {
		return train.Settings{}, err
	}
	est, err := train.NewEstimator(cfg.Algorithm(), train.EstimatorOptions{Window: cfg.Window})
	if err != nil {
		return train.Settings{}, err
	}
	stage := train.Noise{Percent: cfg.StageNoise, Scale: cfg.NoiseScale}
	if cfg.Curriculum != "2il" {
		stage = train.Noise{} // only 2-IL's second stage has weight noise
	}
	return train.Settings{
		Estimator: est, Curriculum: cur, Refine: cfg.Refine, MaxEpochs: cfg.MaxEpochs,
		Schedule: train.Schedule{LR0: cfg.LR, FixedAnnealed: cfg.Stage2Annealed}, Clip: cfg.Clip,
		Noise:      train.Noise{Percent: cfg.Noise, Scale: cfg.NoiseScale},
		StageNoise: stage,
		Seed:       cfg.Seed,
		KeepBest:   cfg.KeepBest,
		Optimizer:  cfg.Optimizer, Batch: cfg.Batch, ClipNorm: cfg.ClipNorm,
		Patience: cfg.Patience, Polish: cfg.Polish, Final: cfg.FinalStarts, Restarts: cfg.Restarts,
		Probes: cfg.Probes, ProbePatience: cfg.ProbePatience, OwnPatience: cfg.OwnPatience, NeutralPatience: cfg.NeutralPatience, NeutralTwoSided: cfg.NeutralTwoSided,
		StartEpochs: cfg.StartEpochs, ProbeEpochs: cfg.ProbeEpochs,
		Finish:         train.Finish{Near: cfg.Finish, Rate: cfg.FinishRate, Beta: cfg.FinishBeta},
		SoftStackBeta0: beta0, SoftStackGrowth: growth, SoftStackAlternate: alternate,
		LockStep: cfg.LockStep,
	}, nil
}

// dirRecorder appends metrics and timing lines and writes checkpoints.
type dirRecorder struct {
	dir             string
	metrics, timing *os.File
	progress        Progress
	prior           float64 // wall seconds of the run when its kept lines end (earlier sessions of a resumed run)
	opened          time.Time
	epoch0          int // epochs and characters before this phase (size rule "both")
	chars0          int64
}

// newDirRecorder opens the metrics files; when resuming from a checkpoint
// it first cuts them back to the checkpoint's epoch, so that an epoch lost
// in a crash is not recorded twice. In the wide phase of a run of the size
// rule "both" (first: the paper-size phase's last checkpoint) the epochs
// and characters it records follow the first phase's.
func newDirRecorder(dir string, first, from *train.Checkpoint, progress Progress) (*dirRecorder, error) {
	r := &dirRecorder{dir: dir, progress: progress, opened: time.Now()}
	if first != nil {
		r.epoch0, r.chars0 = first.Epoch, first.Chars
	}
	epochs := r.epoch0
	if from != nil {
		epochs += from.Epoch
	}
	var err error
	if r.metrics, _, err = openLines(filepath.Join(dir, MetricsFile), epochs); err != nil {
		return nil, err
	}
	var kept []byte
	if r.timing, kept, err = openLines(filepath.Join(dir, timingFile), epochs); err != nil {
		r.metrics.Close()
		return nil, err
	}
	if r.prior, err = timingSeconds(filepath.Join(dir, timingFile), kept); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// timingSeconds is the run's wall seconds at the end of the lines of
// timing.jsonl (at path) in data: a line's wall (the run's wall seconds
// when it was written), plus the seconds of the lines after it that have
// none (files written before lines had it, whose epochs ran one at a
// time). A portfolio's lines are its starts' epochs, which ran side by
// side, so their seconds add up to more than the wall time.
func timingSeconds(path string, data []byte) (float64, error) {
	total := 0.0
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var t struct {
			Seconds float64 `json:"seconds"`
			Wall    float64 `json:"wall"`
		}
		if err := json.Unmarshal(line, &t); err != nil {
			return 0, fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
		if t.Wall > 0 {
			total = t.Wall
		} else {
			total += t.Seconds
		}
	}
	return total, nil
}

// openLines opens path for appending after keeping its first n lines, and
// returns those lines.
func openLines(path string, n int) (*os.File, []byte, error) {
	data, err := limits.ReadFile(path, "run file", limits.RunFileBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	var keep []byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for i := 0; i < n && sc.Scan(); i++ {
		keep = append(append(keep, sc.Bytes()...), '\n')
	}
	if err := atomicfile.WriteFile(path, keep); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	return f, keep, err
}

func (r *dirRecorder) Epoch(m train.Metrics, seconds float64) error {
	m.Epoch += r.epoch0
	m.Chars += r.chars0
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if _, err := r.metrics.Write(append(b, '\n')); err != nil {
		return err
	}
	wall := r.prior + time.Since(r.opened).Seconds()
	if _, err := fmt.Fprintf(r.timing, "{\"epoch\":%d,\"seconds\":%.6f,\"wall\":%.6f}\n", m.Epoch, seconds, wall); err != nil {
		return err
	}
	if r.progress != nil {
		r.progress(m, seconds)
	}
	return nil
}

func (r *dirRecorder) Checkpoint(c *train.Checkpoint) error {
	if err := r.metrics.Sync(); err != nil {
		return err
	}
	return writeRunJSON(filepath.Join(r.dir, CheckpointFile), c)
}

func (r *dirRecorder) close() {
	r.metrics.Close()
	r.timing.Close()
}

func readConfig(dir string) (Config, error) {
	var c Config
	b, err := readRecord(filepath.Join(dir, ConfigFile), "config file")
	if err != nil {
		return c, fmt.Errorf("cannot resume: %v", err)
	}
	if c, err = Migrate(b); err != nil {
		return c, fmt.Errorf("cannot resume: %s: %s", filepath.Join(dir, ConfigFile), jsonerr.Text(err))
	}
	return c, nil
}
