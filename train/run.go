package train

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/nn"
)

// Settings configure a training run.
type Settings struct {
	Estimator  Estimator
	Curriculum Curriculum
	Refine     int      // K, iterations per unhinted symbol (paper: 4)
	MaxEpochs  int      // paper: 500
	Schedule   Schedule // learning rates
	Clip       float64  // element-wise gradient clip (paper: 13)
	Noise      Noise    // the adaptive noise regularizer, every epoch (Percent 0: off)
	StageNoise Noise    // weight noise of 2-IL's second stage
	Seed       uint64   // seeds the order, read, noise, schedule and UORO streams
	// KeepBest ends the run with the weights of the epoch that classified the
	// whole validation set best (ties: the better training accuracy, then the
	// earlier epoch) instead of the last epoch's (Algorithm 1 returns the last).
	KeepBest bool
	// Optimizer is "sgd" (or ""), the paper's, or "adam" (at the constant
	// rate Schedule.LR0, whatever the curriculum's phase).
	Optimizer string
	// Batch is the number of strings per update; their gradients are
	// averaged. 0 or 1: one string at a time, as the paper.
	Batch int
	// ClipNorm, when positive, scales each update's gradient (the net's
	// and the heads' together) to a Euclidean norm of at most ClipNorm,
	// before the optimizer (SGD then also clips element-wise at Clip).
	ClipNorm float64
	// Patience, when positive, selects the weights instead of stopping at
	// convergence: each epoch is scored by its errors on the training set
	// and on Env.Select, the best epoch's weights are kept, and the run
	// stops once they are perfect on both, after Patience epochs without
	// improvement, or at MaxEpochs; it ends with the best weights.
	Patience int
	// Restarts, with Patience, is how many times a run whose best weights
	// are not perfect starts again from new initial weights (Env.Init) when
	// its patience runs out; the curriculum and the optimizer start afresh,
	// and the best weights over every start are kept.
	Restarts int
	// Probes, when positive (with Patience), adds that many short starts of
	// patience ProbePatience after the Restarts long ones, drawing
	// Env.Init(Restarts+1…): a run whose long starts all fail gets many
	// cheap tries at a policy that a start finds at once or never (the
	// third-order palindrome), and every run the long starts learn is the
	// same as without probes.
	Probes        int
	ProbePatience int
	// OwnPatience, with Patience and Restarts, ends a long start (the
	// first and the Restarts after it, not the probes) after Patience
	// epochs without a better score of its own, instead of without a
	// better score than every start so far: a later start that improves
	// slowly, from a plateau the earlier starts already passed, is not cut
	// off before it catches up (aⁿbᵐcⁿ). The
	// weights kept are still the best of all starts.
	OwnPatience bool
	// NeutralSymbols, when positive, is the alphabet's size L for the
	// neutral-symbol prior (Objective.NeutralWeight): long start r (not a
	// probe) pulls the action neurons towards the no-op on symbol
	// NeutralSymbol(r, L), none on starts 0, L+1, …; the probes have none.
	// NeutralPatience, when positive, ends such a start after that many
	// epochs without a better score of its own (as OwnPatience does), not
	// Patience epochs without a better score than every start so far: its
	// net first climbs from the finite-state plateau the earlier starts
	// left, for 10–80 epochs on aⁿbᵐcⁿ.
	NeutralSymbols  int
	NeutralPatience int
	// NeutralTwoSided, with NeutralSymbols, trains the starts with a
	// neutral symbol with the read's two-sided derivative (a TwoSider
	// net; the NSPDA's option two_sided, docs/design.md section 8), and
	// the other starts with the net's own.
	NeutralTwoSided bool
	// SoftStackBeta0, when positive, anneals the sharpness of a net's
	// training-mode stack (Sharpener): epoch e of each start (0-based,
	// counted from the start's first epoch) runs at
	// β_e = SoftStackBeta0·SoftStackGrowth^e (growth 0: 1, constant).
	SoftStackBeta0  float64
	SoftStackGrowth float64
	// SoftStackAlternate (with SoftStackBeta0) trains the even starts
	// (0, 2, …; Restarts) on the digital stack and the odd ones on the
	// superposition stack: selection over the starts then chooses between
	// the two, on the training and select sets only.
	SoftStackAlternate bool
	// LockStep, with Batch > 1 and the BPTT estimator, runs each minibatch
	// in lock-step (BatchBPTT: NSPDAs on the digital stack, no hints, no
	// noise regularizer); string b of a batch draws its reads
	// from its own stream, seeded from the run's read stream. Its gradient
	// is the sum of the strings' BPTT gradients up to rounding, but the read
	// draws differ from the default path's: a run with LockStep is not the
	// same run. Off (the default) changes nothing.
	LockStep bool
	// Polish, when positive (with Patience), gives a run whose starts all
	// ended without perfect weights one more start: from the best weights,
	// with the heads' weights 0 (so that at first only the output's loss
	// moves the net), by SGD (element-wise clip Clip) at the paper's
	// stochastic rate (Schedule.Rate) with its epochs counted from this
	// start's first, a fresh curriculum, no neutral symbol and the digital
	// stack, ending once perfect, after Polish epochs without a better
	// score, or after 2·Polish epochs (MaxEpochs if fewer). It begins
	// when the last start (of Restarts and Probes) ends within MaxEpochs,
	// and its epochs are not counted against MaxEpochs; a run that
	// MaxEpochs cuts short ends without it unless it has Final starts
	// (cutShort). Adam, whatever the run's optimizer, is not used there:
	// from a net that is nearly right its first steps, of the rate's size
	// in every weight, undo it; nor are the heads' weights of the best
	// epoch, whose gradients undid it under SGD (docs/training.md, probe
	// 42).
	Polish int
	// Final, when positive (with Patience), gives a run whose best weights
	// are still not perfect after its last start (of Restarts and Probes),
	// or when MaxEpochs cuts its starts short, and after its polish (if
	// any) up to Final more long starts from new weights
	// (Env.Init(Restarts+Probes+1…)). Final start k (0-based) holds symbol
	// NeutralSymbol(k+1, NeutralSymbols) at the no-op (every symbol in
	// turn, then none; none without NeutralSymbols) and ends after
	// NeutralPatience epochs (Patience without it) without a better score
	// of its own; the final starts together have MaxEpochs epochs of
	// their own, and end at the first perfect weights. A run that reaches
	// them was going to end with imperfect weights; every other run is the
	// same as without them.
	Final int
	// StartEpochs and ProbeEpochs, when positive, end each start of a
	// portfolio (RunPortfolio) from new weights after that many epochs of
	// its own, if its patience has not ended it before: StartEpochs the
	// long and final starts, ProbeEpochs the probes. Run has no such
	// bound: its starts share one patience, which ends a start that does
	// not beat the earlier starts' best (Start.Epochs).
	StartEpochs, ProbeEpochs int
	// Finish, with Near positive, finishes a portfolio's near starts on
	// the superposition stack (Finish).
	Finish Finish
}

// Finish trains on, in a portfolio (RunPortfolio), from the best weights
// of a start from new weights that ended with a best score (training plus
// select error fraction) above 0 and at most Near: on a net with the
// superposition stack (Fresh(true)) at the constant sharpness Beta, by Adam
// at Rate with fresh moments, the heads kept, until its weights are
// perfect, Patience epochs pass without a better score, or Patience epochs
// in all. On the digital stack such nets are thrown out again, at every
// rate tried, because a push is credited only with its next read; the
// superposition stack credits it with every later one (docs/training.md,
// "Finish").
type Finish struct {
	Near, Rate, Beta float64
}

// lockStep returns the lock-step estimator of set.LockStep (nil: off), or
// why the run cannot use it.
func (set Settings) lockStep(env Env) (*BatchBPTT, error) {
	if !set.LockStep || set.Batch <= 1 {
		return nil, nil
	}
	if _, ok := set.Estimator.(*BPTT); !ok {
		return nil, fmt.Errorf("lock_step minibatches run BPTT only, not %s", set.Estimator.Name())
	}
	if set.Noise.Percent > 0 || set.StageNoise.Percent > 0 {
		return nil, fmt.Errorf("lock_step minibatches do not run the noise regularizer")
	}
	if set.SoftStackBeta0 > 0 {
		return nil, fmt.Errorf("lock_step minibatches run on the digital stack only")
	}
	lock := &BatchBPTT{}
	for _, ex := range env.Train {
		if err := lock.Supports(env.Net, ex); err != nil {
			return nil, err
		}
	}
	return lock, nil
}

// TwoSider is a net whose read's derivative can be made two-sided for a
// start (the NSPDA: nspda.Net.SetTwoSided).
type TwoSider interface {
	SetTwoSided(on bool)
}

// Sharpener is a net whose training-mode forward pass has a sharpness that
// the trainer anneals (the NSPDA's superposition stack), and that can train
// on its digital stack instead (SetSoft(false); the state keeps its size).
type Sharpener interface {
	SetSharpness(beta float64)
	SetSoft(on bool)
}

// sharpness is β for epoch e of a start (Settings.SoftStackBeta0).
func (set Settings) sharpness(e int) float64 {
	g := set.SoftStackGrowth
	if g == 0 {
		g = 1
	}
	return set.SoftStackBeta0 * math.Pow(g, float64(e))
}

// Env is what is trained, on what.
type Env struct {
	Net   nn.Net
	Train []Example
	Valid []Example
	// Tensors are the net's noise matrices (nil if it has none).
	Tensors [][][]int
	// Classifier returns an evaluation-mode classifier that uses the net's
	// current weights.
	Classifier func() evaluate.Classifier
	// Obj holds the loss terms besides the paper's (nil: none) and the
	// heads they train.
	Obj *Objective
	// Select is the selection set of Settings.Patience (longer strings than
	// the training set's, drawn from the training data's seed).
	Select []Example
	// Init draws the initial weights of restart r ≥ 1 (Settings.Restarts)
	// into the net and the heads.
	Init func(r int) error
	// EvalWorkers > 1 classifies the per-epoch sets (training, validation,
	// selection) on that many goroutines, each with its own Classifier().
	// Only for nets whose classifiers share nothing mutable (the NSPDA's
	// runners); the counts, and so every result, are the same.
	EvalWorkers int
}

// Metrics is one epoch's line of metrics.jsonl. It holds no wall-clock time,
// so that the same seed gives the same file byte for byte.
type Metrics struct {
	Epoch    int     `json:"epoch"`
	Chars    int64   `json:"chars"`     // input symbols presented so far
	Loss     float64 `json:"loss"`      // mean loss per string this epoch
	TrainAcc float64 `json:"train_acc"` // % of the training set classified correctly
	ValidAcc float64 `json:"valid_acc"` // % of the validation strings judged (see Phase.ValidMax)
	LR       float64 `json:"lr"`
	Stage    int     `json:"stage"`
	MaxLen   int     `json:"max_len"` // longest string presented this epoch
	Strings  int     `json:"strings"` // strings presented this epoch
	// SelectAcc is the % of Env.Select classified correctly (with
	// Settings.Patience only).
	SelectAcc *float64 `json:"select_acc,omitempty"`
	// Beta is the training stack's sharpness this epoch (with
	// Settings.SoftStackBeta0 only).
	Beta float64 `json:"beta,omitempty"`
	// Start is the index of the start the epoch belongs to, in a
	// portfolio run (RunPortfolio) only: Run's metrics never had it.
	Start int `json:"start,omitempty"`
	// Finish marks an epoch of a start's finish (Settings.Finish).
	Finish bool `json:"finish,omitempty"`
}

// Checkpoint is everything needed to continue a run after the epoch it was
// taken at.
type Checkpoint struct {
	Epoch          int               `json:"epoch"`
	Chars          int64             `json:"chars"`
	Params         []float64         `json:"params"`
	Curriculum     json.RawMessage   `json:"curriculum"`
	Last           *Report           `json:"last"`
	Streams        map[string][]byte `json:"streams"`
	Converged      bool              `json:"converged"`
	ConvergedEpoch int               `json:"converged_epoch"`
	ConvergedChars int64             `json:"converged_chars"`
	Finished       bool              `json:"finished"`
	Best           *Best             `json:"best,omitempty"` // with Settings.KeepBest
	// FixedFrom is 1 + the epoch at which the first fixed-rate phase began
	// (0: none yet): with Schedule.FixedAnnealed it sets that phase's rate.
	FixedFrom int `json:"fixed_from,omitempty"`
	// Adam is the optimizer's state (with Settings.Optimizer "adam").
	Adam *Adam `json:"adam,omitempty"`
	// Heads are the parameters of Env.Obj's heads.
	Heads [][]float64 `json:"heads,omitempty"`
	// Selection is the state of Settings.Patience.
	Selection *Selection `json:"selection,omitempty"`
	// Restart counts the restarts so far (Settings.Restarts).
	Restart int `json:"restart,omitempty"`
	// PolishFrom is 1 + the epoch after which the polishing start
	// (Settings.Polish) began; 0: it has not.
	PolishFrom int `json:"polish_from,omitempty"`
	// FinalFrom is 1 + the epoch after which the final starts
	// (Settings.Final) began; 0: they have not.
	FinalFrom int `json:"final_from,omitempty"`
	// StartEpoch is the epoch the current start began after (with
	// Settings.SoftStackBeta0 only): the sharpness schedule counts from it.
	StartEpoch int `json:"start_epoch,omitempty"`
	// Portfolio is how far a portfolio run (RunPortfolio) has come; its
	// Epoch, Chars, convergence, Selection and Best are those of its
	// committed starts.
	Portfolio *Portfolio `json:"portfolio,omitempty"`
}

// Selection is the state of a run that selects its weights (Settings.Patience).
type Selection struct {
	Epoch     int     `json:"epoch"`      // the best epoch so far
	Errors    float64 `json:"errors"`     // its error fraction on the training set plus on Env.Select
	TrainAcc  float64 `json:"train_acc"`  // its fraction of the training set right
	SinceBest int     `json:"since_best"` // epochs since it
	// StartBest is the best score (training plus select error fraction)
	// of the current start, nil before its first epoch; it counts only
	// with Settings.OwnPatience.
	StartBest *float64  `json:"start_best,omitempty"`
	Params    []float64 `json:"params"`
}

// Best is the epoch a KeepBest run selects so far, with its weights.
type Best struct {
	Epoch    int       `json:"epoch"`
	ValidAcc float64   `json:"valid_acc"` // fraction of the whole validation set
	TrainAcc float64   `json:"train_acc"` // fraction of the training set
	Params   []float64 `json:"params"`
}

// Recorder receives each epoch's metrics and checkpoint.
type Recorder interface {
	Epoch(m Metrics, seconds float64) error
	Checkpoint(c *Checkpoint) error
}

// Result summarizes a run.
type Result struct {
	Converged bool    // training accuracy reached 100%
	Epochs    int     // epochs run (to convergence, if converged)
	Chars     int64   // input symbols presented (to convergence, if converged)
	TrainAcc  float64 // training accuracy of the weights the run ends with, %
	Selected  int     // with KeepBest: the epoch whose weights the run ends with
	// SelectErrors (with Settings.Patience) is the score of the weights the
	// run ends with: their error fraction on the training set plus on
	// Env.Select; 0 when they are perfect on both.
	SelectErrors float64
}

// streamNames are the run's independent random streams.
var streamNames = []string{"order", "reads", "noise", "schedule", "uoro"}

// Run trains env.Net. It starts from a checkpoint if from is not nil. It
// stops when the training set is classified perfectly (convergence), when
// the curriculum ends, after MaxEpochs, or when ctx is cancelled (the epoch in
// flight is lost; the last checkpoint stands). A non-finite loss, gradient or
// weight stops it with an error naming the epoch and string. With Patience
// it runs its starts (Settings.Starts) one after another while the best
// weights are not perfect.
func Run(ctx context.Context, env Env, set Settings, rec Recorder, from *Checkpoint) (Result, error) {
	r, err := newRunner(env, set, rec, from)
	if err != nil {
		return Result{}, err
	}
	for {
		s, ok, err := r.next()
		if err != nil {
			return Result{}, err
		}
		if !ok {
			break
		}
		if over, err := r.runStart(ctx, s); err != nil {
			return Result{}, err
		} else if over {
			break
		}
	}
	return r.result(), nil
}

// runner is a run in progress: its state (what a checkpoint saves), its
// plan of starts and its scratch.
type runner struct {
	env    Env
	set    Settings
	sc     schedule
	rec    Recorder
	st     *runState
	params []float64
	// vecs are what the optimizer updates, grads their gradients.
	vecs, grads [][]float64
	// fresh is the curriculum's JSON state before its first epoch: the
	// one a start begins with.
	fresh                      []byte
	order, reads, noise, sched *rand.Rand
	lock                       *BatchBPTT
	pending                    []Example    // the lock-step batch being gathered
	lockRng                    []*rand.Rand // its strings' read streams
	lockPCG                    []*rand.PCG
	clean                      []float64 // the weights without noise
	perm                       []int     // the noise regularizer's scratch
	correct                    []bool
}

// newRunner prepares the run of Run: its streams, its state (from the
// checkpoint from, if not nil), its optimizer and selection.
func newRunner(env Env, set Settings, rec Recorder, from *Checkpoint) (*runner, error) {
	return newRunnerOf(env, set, rec, from, 0)
}

// newRunnerOf is newRunner with the random streams of start index (those
// of a start of a portfolio, which draws its own; 0: the run's).
func newRunnerOf(env Env, set Settings, rec Recorder, from *Checkpoint, index int) (*runner, error) {
	r := &runner{env: env, set: set, sc: newSchedule(set), rec: rec, params: env.Net.Params(),
		st: &runState{pcg: map[string]*rand.PCG{}}}
	st := r.st
	for _, name := range streamNames {
		st.pcg[name] = rand.NewPCG(set.Seed, startStream(name, index))
	}
	r.vecs, r.grads = trained(env)
	var err error
	if r.fresh, err = json.Marshal(set.Curriculum); err != nil {
		return nil, err
	}
	if from != nil {
		if err := st.restore(from, r.params, set.Curriculum); err != nil {
			return nil, err
		}
		if err := restoreHeads(env.Obj, from.Heads); err != nil {
			return nil, err
		}
	}
	if set.Optimizer == "adam" && st.cp.Adam == nil {
		n := 0
		for _, v := range r.vecs {
			n += len(v)
		}
		st.cp.Adam = NewAdam(n)
	}
	if set.Patience > 0 && st.cp.Selection == nil {
		st.cp.Selection = &Selection{Errors: math.Inf(1)}
	}
	rng := func(name string) *rand.Rand { return rand.New(st.pcg[name]) }
	r.order, r.reads, r.noise, r.sched = rng("order"), rng("reads"), rng("noise"), rng("schedule")
	if u, ok := set.Estimator.(RandUser); ok {
		u.SetRand(rng("uoro"))
	}
	if r.lock, err = set.lockStep(env); err != nil {
		return nil, err
	}
	r.clean, r.correct = make([]float64, len(r.params)), make([]bool, len(env.Train))
	return r, nil
}

// runStart trains start s epoch by epoch, checkpointing after each, until
// it ends; then it begins the start that follows at once, if one does,
// before the last checkpoint. over: the curriculum ended, and the run
// with it.
func (r *runner) runStart(ctx context.Context, s Start) (over bool, err error) {
	for {
		if over, err := r.epoch(ctx, s); over || err != nil {
			return over, err
		}
		if r.ended(s) {
			break
		}
		if err := r.save(); err != nil {
			return false, err
		}
	}
	if err := r.follow(s); err != nil {
		return false, err
	}
	return false, r.save()
}

// save checkpoints the run.
func (r *runner) save() error {
	r.st.cp.Heads = headParams(r.env.Obj)
	return r.st.save(r.params, r.set.Curriculum, r.rec)
}

// snapshot is the runner's state as save records it, in a copy of its
// own (the weights and the heads' parameters cloned).
func (r *runner) snapshot() (*Checkpoint, error) {
	if err := r.st.capture(r.params, r.set.Curriculum); err != nil {
		return nil, err
	}
	cp := r.st.cp
	cp.Params, cp.Heads = slices.Clone(r.params), nil
	for _, h := range r.env.Obj.Heads() {
		cp.Heads = append(cp.Heads, slices.Clone(h.Params))
	}
	return &cp, nil
}

// result is what the run ended with; the net gets the weights it keeps.
func (r *runner) result() Result { return resultOf(&r.st.cp, r.set, r.params) }

// resultOf is what a run that ended in checkpoint cp ended with; params,
// the net's, get the weights it keeps.
func resultOf(cp *Checkpoint, set Settings, params []float64) Result {
	res := Result{Converged: cp.Converged, Epochs: cp.Epoch, Chars: cp.Chars}
	if cp.Converged {
		res.Epochs, res.Chars = cp.ConvergedEpoch, cp.ConvergedChars
	}
	if cp.Last != nil {
		res.TrainAcc = 100 * cp.Last.TrainAcc
	}
	if b := cp.Best; set.KeepBest && b != nil {
		copy(params, b.Params)
		res.TrainAcc, res.Selected = 100*b.TrainAcc, b.Epoch
	}
	if sel := cp.Selection; sel != nil {
		res.SelectErrors = sel.Errors // +Inf before the first epoch
		if sel.Params != nil {
			copy(params, sel.Params)
			res.TrainAcc, res.Selected = 100*sel.TrainAcc, sel.Epoch
		}
	}
	return res
}

// trained lists the vectors an optimizer updates, the net's parameters then
// the heads', and a gradient vector for each.
func trained(env Env) (vecs, grads [][]float64) {
	p := env.Net.Params()
	vecs, grads = [][]float64{p}, [][]float64{make([]float64, len(p))}
	for _, h := range env.Obj.Heads() {
		vecs, grads = append(vecs, h.Params), append(grads, h.Grad)
	}
	return vecs, grads
}

// polishEpochs is the number of epochs the polishing start has run.
func (st *runState) polishEpochs() int { return st.cp.Epoch - st.cp.PolishFrom + 1 }

// begin resets what every start begins afresh: the curriculum (from its
// JSON state fresh), the rate's factor and the patience count; the best
// weights so far stay.
func (st *runState) begin(set Settings, fresh []byte) error {
	if err := json.Unmarshal(fresh, set.Curriculum); err != nil {
		return err
	}
	st.cp.Finished, st.cp.Last, st.cp.FixedFrom = false, nil, 0
	st.cp.Selection.SinceBest, st.cp.Selection.StartBest = 0, nil
	if set.SoftStackBeta0 > 0 {
		st.cp.StartEpoch = st.cp.Epoch
	}
	return nil
}

// ErrCheckpointMismatch is matched (errors.Is) by Run's error for a
// checkpoint whose shape is not the run's (its parameters or heads): the
// configuration or the data it was built from changed since it was written.
// The caller knows the file and names it.
var ErrCheckpointMismatch = errors.New("the checkpoint does not fit the run")

// mismatch is a checkpoint's difference from the run; it is
// ErrCheckpointMismatch.
type mismatch string

func (m mismatch) Error() string { return string(m) }

func (m mismatch) Is(target error) bool { return target == ErrCheckpointMismatch }

// headParams copies the heads' parameters for a checkpoint.
func headParams(obj *Objective) [][]float64 {
	var out [][]float64
	for _, h := range obj.Heads() {
		out = append(out, h.Params)
	}
	return out
}

// restoreHeads sets the heads' parameters from a checkpoint.
func restoreHeads(obj *Objective, from [][]float64) error {
	hs := obj.Heads()
	if len(from) != len(hs) {
		return mismatch(fmt.Sprintf("it has %d heads, the run %d", len(from), len(hs)))
	}
	for i, h := range hs {
		if len(from[i]) != len(h.Params) {
			return mismatch(fmt.Sprintf("its head %d has %d parameters, the run's %d", i, len(from[i]), len(h.Params)))
		}
		copy(h.Params, from[i])
	}
	return nil
}

// keepBest records the current weights as the best so far if they classify
// the whole validation set better than the best so far (ties: better on the
// training set; otherwise the earlier epoch stays).
func (st *runState) keepBest(env Env, trainAcc float64, params []float64) {
	va := accuracy(env, env.Valid)
	b := st.cp.Best
	if !b.beatenBy(va, trainAcc) {
		return
	}
	if b == nil {
		b = &Best{Params: make([]float64, len(params))}
		st.cp.Best = b
	}
	b.Epoch, b.ValidAcc, b.TrainAcc = st.cp.Epoch, va, trainAcc
	copy(b.Params, params)
}

// beatenBy reports whether weights of validation and training accuracy va
// and ta rank above the best b (nil: none yet): better on the validation
// set, or as good there and better on the training set.
func (b *Best) beatenBy(va, ta float64) bool {
	return b == nil || va > b.ValidAcc || va == b.ValidAcc && ta > b.TrainAcc
}

// runState is the part of a run a checkpoint saves.
type runState struct {
	cp  Checkpoint
	pcg map[string]*rand.PCG
}

func (st *runState) save(params []float64, cur Curriculum, rec Recorder) error {
	if err := st.capture(params, cur); err != nil {
		return err
	}
	return rec.Checkpoint(&st.cp)
}

// capture puts the weights params, the curriculum's state and the random
// streams' states in the checkpoint, which then holds what a resume needs
// (the heads' parameters aside).
func (st *runState) capture(params []float64, cur Curriculum) error {
	st.cp.Params = params
	var err error
	if st.cp.Curriculum, err = json.Marshal(cur); err != nil {
		return err
	}
	st.cp.Streams = map[string][]byte{}
	for name, p := range st.pcg {
		if st.cp.Streams[name], err = p.MarshalBinary(); err != nil {
			return err
		}
	}
	return nil
}

func (st *runState) restore(from *Checkpoint, params []float64, cur Curriculum) error {
	if len(from.Params) != len(params) {
		return mismatch(fmt.Sprintf("it has %d parameters, the run's model %d", len(from.Params), len(params)))
	}
	copy(params, from.Params)
	if err := json.Unmarshal(from.Curriculum, cur); err != nil {
		return fmt.Errorf("checkpoint curriculum: %v", err)
	}
	for name, p := range st.pcg {
		b, ok := from.Streams[name]
		if !ok {
			return fmt.Errorf("checkpoint lacks random stream %q", name)
		}
		if err := p.UnmarshalBinary(b); err != nil {
			return fmt.Errorf("checkpoint stream %q: %v", name, err)
		}
	}
	st.cp = *from
	st.cp.Params = nil
	return nil
}

// judge evaluates the net after an epoch: on the whole training set (noting
// which strings it gets right in correct), on the subset just trained on, and
// on the validation strings of length <= phase.ValidMax.
func judge(env Env, phase Phase, subset []int, correct []bool) Report {
	classify(env, env.Train, correct)
	right := 0
	for _, c := range correct {
		if c {
			right++
		}
	}
	var r Report
	r.TrainAcc = ratio(right, len(env.Train))
	sub := 0
	for _, i := range subset {
		if correct[i] {
			sub++
		}
	}
	r.SubsetAcc = ratio(sub, len(subset))
	var valid []Example
	for _, ex := range env.Valid {
		if len(ex.Syms) <= phase.ValidMax {
			valid = append(valid, ex)
		}
	}
	r.ValidAcc = accuracy(env, valid)
	return r
}

// accuracy is the fraction of exs that env's classifiers get right (1 for
// none).
func accuracy(env Env, exs []Example) float64 {
	ok := make([]bool, len(exs))
	classify(env, exs, ok)
	right := 0
	for _, c := range ok {
		if c {
			right++
		}
	}
	return ratio(right, len(exs))
}

// classify sets correct[i] to whether exs[i] is classified right, on
// env.EvalWorkers goroutines (each with its own classifier, over a
// contiguous share of exs).
func classify(env Env, exs []Example, correct []bool) {
	w := min(max(1, env.EvalWorkers), len(exs))
	if w <= 1 {
		cls := env.Classifier()
		for i, ex := range exs {
			ok, _ := cls.Classify(ex.Syms)
			correct[i] = ok == (ex.Label == 1)
		}
		return
	}
	var wg sync.WaitGroup
	for k := range w {
		lo, hi := k*len(exs)/w, (k+1)*len(exs)/w
		cls := env.Classifier()
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				ok, _ := cls.Classify(exs[i].Syms)
				correct[i] = ok == (exs[i].Label == 1)
			}
		})
	}
	wg.Wait()
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// subsetUpTo returns the indices of the examples of length <= n.
func subsetUpTo(exs []Example, n int) []int {
	var idx []int
	for i, ex := range exs {
		if len(ex.Syms) <= n {
			idx = append(idx, i)
		}
	}
	return idx
}
