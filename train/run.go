package train

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

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
	// Plateau, when positive (with Patience), halves the rate and returns
	// to the best weights after every Plateau epochs without improvement.
	Plateau int
	// Restarts, with Patience, is how many times a run whose best weights
	// are not perfect starts again from new initial weights (Env.Init) when
	// its patience runs out; the curriculum and the optimizer start afresh,
	// and the best weights over every start are kept.
	Restarts int
	// Luby, with Patience and Restarts, gives start r (0-based) the patience
	// Patience·luby(r+1), luby = 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, …: the
	// universal restart schedule of Luby, Sinclair and Zuckerman (1993),
	// within a logarithmic factor of the best fixed start length for any
	// distribution of the epochs a start needs: many short starts, and a
	// few long ones for languages that learn slowly.
	Luby bool
	// FirstPatience, when positive, is the patience of the first start
	// (Patience, or its Luby term, serves the restarts): one long start,
	// then short ones.
	FirstPatience int
	// Probes, when positive (with Patience), adds that many short starts of
	// patience ProbePatience after the Restarts long ones, drawing
	// Env.Init(Restarts+1…): a run whose long starts all fail gets many
	// cheap tries at a policy that a start finds at once or never (the
	// third-order palindrome), and every run the long starts learn is the
	// same as without probes.
	Probes        int
	ProbePatience int
	// ProbeLong, when positive (with Probes), gives every ProbeLong-th
	// probe (the ProbeLong-th, 2·ProbeLong-th, …) the long starts'
	// patience instead of ProbePatience: a mix of start lengths for a
	// language whose starts leave their first plateau only after many
	// epochs (aⁿbᵐcⁿ), which short probes never
	// reach, beside the many cheap tries that a policy found at once or
	// never needs.
	ProbeLong int
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
	// TrainFirst, with Patience, ranks epochs by their training errors
	// first and by their select errors only on a tie (lexicographic), so
	// that a net with training errors never wins on its select score; off,
	// the rank is the sum of the two (Selection.Errors).
	TrainFirst bool
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

// softStart reports whether start r trains on the superposition stack.
func (set Settings) softStart(r int) bool {
	return !set.SoftStackAlternate || r%2 == 1
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
}

// Selection is the state of a run that selects its weights (Settings.Patience).
type Selection struct {
	Epoch     int     `json:"epoch"`      // the best epoch so far
	Errors    float64 `json:"errors"`     // its error fraction on the training set plus on Env.Select
	TrainAcc  float64 `json:"train_acc"`  // its fraction of the training set right
	SinceBest int     `json:"since_best"` // epochs since it
	// SelectErr is its error fraction on Env.Select alone (the rank of
	// Settings.TrainFirst).
	SelectErr float64 `json:"select_err,omitempty"`
	// StartBest is the best score (training plus select error fraction)
	// of the current start, nil before its first epoch; it counts only
	// with Settings.OwnPatience.
	StartBest *float64  `json:"start_best,omitempty"`
	LRFactor  float64   `json:"lr_factor"` // the rate's factor after plateau halvings
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
	// SelectTrainErr and SelectErr split SelectErrors into its training and
	// select error fractions (Settings.TrainFirst ranks by them).
	SelectTrainErr, SelectErr float64
}

// TrainFirstBeats reports whether a net with training error fraction
// train and select error fraction sel ranks above one with bestTrain and
// bestSel under Settings.TrainFirst: training errors first, select errors
// on a tie.
func TrainFirstBeats(train, sel, bestTrain, bestSel float64) bool {
	if train != bestTrain {
		return train < bestTrain
	}
	return sel < bestSel
}

// streamNames are the run's independent random streams.
var streamNames = []string{"order", "reads", "noise", "schedule", "uoro"}

// Run trains env.Net. It starts from a checkpoint if from is not nil. It
// stops when the training set is classified perfectly (convergence), when
// the curriculum ends, after MaxEpochs, or when ctx is cancelled (the epoch in
// flight is lost; the last checkpoint stands). A non-finite loss, gradient or
// weight stops it with an error naming the epoch and string.
func Run(ctx context.Context, env Env, set Settings, rec Recorder, from *Checkpoint) (Result, error) {
	params := env.Net.Params()
	st := &runState{pcg: map[string]*rand.PCG{}}
	for _, name := range streamNames {
		st.pcg[name] = rand.NewPCG(set.Seed, StreamSeed(name))
	}
	vecs, grads := trained(env)
	fresh, err := json.Marshal(set.Curriculum) // the curriculum a restart begins
	if err != nil {
		return Result{}, err
	}
	if from != nil {
		if err := st.restore(from, params, set.Curriculum); err != nil {
			return Result{}, err
		}
		if err := restoreHeads(env.Obj, from.Heads); err != nil {
			return Result{}, err
		}
	}
	if set.Optimizer == "adam" && st.cp.Adam == nil {
		n := 0
		for _, v := range vecs {
			n += len(v)
		}
		st.cp.Adam = NewAdam(n)
	}
	if set.Patience > 0 && st.cp.Selection == nil {
		st.cp.Selection = &Selection{Errors: math.Inf(1), LRFactor: 1}
	}
	rng := func(name string) *rand.Rand { return rand.New(st.pcg[name]) }
	order, reads, noise, sched := rng("order"), rng("reads"), rng("noise"), rng("schedule")
	if u, ok := set.Estimator.(RandUser); ok {
		u.SetRand(rng("uoro"))
	}
	grad := grads[0]
	lock, err := set.lockStep(env)
	if err != nil {
		return Result{}, err
	}
	var (
		pending []Example    // the lock-step batch being gathered
		lockRng []*rand.Rand // its strings' read streams
		lockPCG []*rand.PCG
	)
	clean := make([]float64, len(params))
	var perm []int // the noise regularizer's scratch
	correct := make([]bool, len(env.Train))
	for {
		if st.cutShort(set) {
			if err := st.endStarts(env, set, fresh); err != nil {
				return Result{}, err
			}
		}
		if st.cp.Finished && st.polishDue(set) {
			if err := st.polish(env, set, fresh, params); err != nil {
				return Result{}, err
			}
		}
		if st.cp.Converged && set.Patience == 0 || st.cp.Finished || st.outOfEpochs(set) {
			break
		}
		start := time.Now()
		phase, ok := set.Curriculum.Next(st.cp.Last)
		if !ok {
			st.cp.Finished = true
			break
		}
		var lr float64
		if st.polishing() {
			lr = set.Schedule.Rate(st.polishEpochs(), sched)
		} else if phase.Stochastic {
			lr = set.Schedule.Rate(st.cp.Epoch, sched)
		} else {
			if st.cp.FixedFrom == 0 {
				st.cp.FixedFrom = st.cp.Epoch + 1
			}
			lr = set.Schedule.Fixed(st.cp.FixedFrom - 1)
		}
		if set.Optimizer == "adam" && !st.polishing() {
			lr = set.Schedule.LR0
		}
		if sel := st.cp.Selection; sel != nil {
			lr *= sel.LRFactor
		}
		env.Obj.SetNeutral(st.neutral(set))
		env.Obj.SetFinal(set.final(st.cp.Restart)) // the polish is start Restarts+Probes or earlier: never final
		if ts, ok := env.Net.(TwoSider); ok && set.NeutralTwoSided {
			ts.SetTwoSided(!st.polishing() && set.neutralTwo(st.cp.Restart))
		}
		var beta float64
		if sh, ok := env.Net.(Sharpener); ok && set.SoftStackBeta0 > 0 {
			beta = set.sharpness(st.cp.Epoch - st.cp.StartEpoch)
			sh.SetSharpness(beta)
			soft := set.softStart(st.cp.Restart) && !st.polishing()
			sh.SetSoft(soft)
			if !soft {
				beta = 0 // no sharpness on the digital stack
			}
		}
		subset := subsetUpTo(env.Train, phase.MaxLen)
		order.Shuffle(len(subset), func(i, j int) { subset[i], subset[j] = subset[j], subset[i] })
		nz := set.Noise
		if phase.WeightNoise && set.StageNoise.Percent > nz.Percent {
			nz = set.StageNoise
		}
		lossSum := 0.0
		batch, inBatch := max(1, set.Batch), 0
		for n, idx := range subset {
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
			ex := env.Train[idx]
			if lock != nil {
				if pending = append(pending, ex); len(pending) < batch && n < len(subset)-1 {
					continue
				}
				for len(lockRng) < len(pending) {
					pcg := rand.NewPCG(0, 0)
					lockPCG, lockRng = append(lockPCG, pcg), append(lockRng, rand.New(pcg))
				}
				for b := range pending {
					lockPCG[b].Seed(reads.Uint64(), reads.Uint64())
				}
				for _, g := range grads {
					nn.Zero(g)
				}
				loss, err := lock.GradientBatch(env.Net, env.Obj, pending, set.Refine, lockRng[:len(pending)], grad)
				if err != nil {
					return Result{}, err
				}
				if math.IsNaN(loss) || math.IsInf(loss, 0) {
					return Result{}, fmt.Errorf("epoch %d, strings %d–%d of %d: loss is %v; stopping", st.cp.Epoch+1, n+2-len(pending), n+1, len(subset), loss)
				}
				if err := st.update(set, vecs, grads, len(pending), lr); err != nil {
					return Result{}, fmt.Errorf("epoch %d, string %d of %d: %v; stopping", st.cp.Epoch+1, n+1, len(subset), err)
				}
				for _, e := range pending {
					st.cp.Chars += int64(len(e.Syms))
				}
				lossSum += loss
				pending = pending[:0]
				continue
			}
			if nz.Percent > 0 && env.Tensors != nil {
				copy(clean, params)
				perm = nz.Apply(params, env.Tensors, noise, perm)
			}
			if inBatch == 0 {
				for _, g := range grads {
					nn.Zero(g)
				}
			}
			loss := set.Estimator.Gradient(env.Net, env.Obj, ex, set.Refine, reads, grad)
			if nz.Percent > 0 && env.Tensors != nil {
				copy(params, clean)
			}
			if math.IsNaN(loss) || math.IsInf(loss, 0) {
				return Result{}, fmt.Errorf("epoch %d, string %d of %d: loss is %v; stopping", st.cp.Epoch+1, n+1, len(subset), loss)
			}
			if inBatch++; inBatch == batch || n == len(subset)-1 {
				if err := st.update(set, vecs, grads, inBatch, lr); err != nil {
					return Result{}, fmt.Errorf("epoch %d, string %d of %d: %v; stopping", st.cp.Epoch+1, n+1, len(subset), err)
				}
				inBatch = 0
			}
			st.cp.Chars += int64(len(ex.Syms))
			lossSum += loss
		}
		if math.IsNaN(lossSum) || math.IsInf(lossSum, 0) {
			return Result{}, fmt.Errorf("epoch %d: the epoch's summed loss is %v; stopping", st.cp.Epoch+1, lossSum)
		}
		st.cp.Epoch++
		report := judge(env, phase, subset, correct)
		m := Metrics{
			Epoch: st.cp.Epoch, Chars: st.cp.Chars, Loss: lossSum / float64(max(1, len(subset))),
			TrainAcc: 100 * report.TrainAcc, ValidAcc: 100 * report.ValidAcc, LR: lr,
			Stage: phase.Stage, MaxLen: phase.MaxLen, Strings: len(subset), Beta: beta,
		}
		st.cp.Last = &report
		if set.KeepBest {
			st.keepBest(env, report.TrainAcc, params)
		}
		if report.TrainAcc == 1 && !st.cp.Converged {
			st.cp.Converged, st.cp.ConvergedEpoch, st.cp.ConvergedChars = true, st.cp.Epoch, st.cp.Chars
		}
		if st.cp.Selection != nil {
			acc := st.selectEpoch(env, set, report.TrainAcc, params)
			m.SelectAcc = &acc
		}
		if err := rec.Epoch(m, time.Since(start).Seconds()); err != nil {
			return Result{}, err
		}
		if st.cp.Finished && st.cp.Selection != nil && st.cp.Selection.Errors > 0 && (st.cp.Restart < set.Restarts+set.Probes || st.finalDue(set)) {
			if err := st.restart(env, set, fresh); err != nil {
				return Result{}, err
			}
		}
		st.cp.Heads = headParams(env.Obj)
		if err := st.save(params, set.Curriculum, rec); err != nil {
			return Result{}, err
		}
	}
	res := Result{Converged: st.cp.Converged, Epochs: st.cp.Epoch, Chars: st.cp.Chars}
	if st.cp.Converged {
		res.Epochs, res.Chars = st.cp.ConvergedEpoch, st.cp.ConvergedChars
	}
	if st.cp.Last != nil {
		res.TrainAcc = 100 * st.cp.Last.TrainAcc
	}
	if b := st.cp.Best; set.KeepBest && b != nil {
		copy(params, b.Params)
		res.TrainAcc, res.Selected = 100*b.TrainAcc, b.Epoch
	}
	if sel := st.cp.Selection; sel != nil {
		res.SelectErrors = sel.Errors // +Inf before the first epoch
		res.SelectTrainErr, res.SelectErr = math.Inf(1), math.Inf(1)
		if sel.Params != nil {
			res.SelectTrainErr, res.SelectErr = 1-sel.TrainAcc, sel.SelectErr
			copy(params, sel.Params)
			res.TrainAcc, res.Selected = 100*sel.TrainAcc, sel.Epoch
		}
	}
	return res, nil
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

// update applies one optimizer step from the gradients of n strings summed
// in grads.
func (st *runState) update(set Settings, vecs, grads [][]float64, n int, lr float64) error {
	if n > 1 {
		scale(grads, 1/float64(n))
	}
	if set.ClipNorm > 0 {
		clipNorm(grads, set.ClipNorm)
	}
	if st.cp.Adam != nil && !st.polishing() {
		return st.cp.Adam.Step(vecs, grads, lr)
	}
	for i, v := range vecs {
		if err := SGD(v, grads[i], lr, set.Clip); err != nil {
			return err
		}
	}
	return nil
}

// selectEpoch scores the epoch just ended (errors on the training set plus
// on env.Select), keeps its weights if they are the best so far, halves the
// rate and returns to the best weights on a plateau, and ends the run when
// the best is perfect or patience runs out. It returns the % of env.Select
// classified correctly.
func (st *runState) selectEpoch(env Env, set Settings, trainAcc float64, params []float64) float64 {
	acc := accuracy(env, env.Select)
	sel := st.cp.Selection
	sel.advance(set, st.cp.Restart, st.polishing(), st.cp.Epoch, trainAcc, acc, params)
	patience, polishEnd := set.startPatience(st.cp.Restart), false
	if st.polishing() {
		patience, polishEnd = set.Polish, st.polishEpochs() >= min(2*set.Polish, set.MaxEpochs)
	}
	switch {
	case sel.Errors == 0 || sel.SinceBest >= patience || polishEnd:
		st.cp.Finished = true
	case set.Plateau > 0 && sel.SinceBest > 0 && sel.SinceBest%set.Plateau == 0:
		sel.LRFactor /= 2
		copy(params, sel.Params)
		if st.cp.Adam != nil {
			st.cp.Adam.Reset()
		}
	}
	return 100 * acc
}

// advance scores epoch (of start restart) by its accuracies on the
// training set and the select split: its weights become the best if they
// beat the best of every start so far, and the patience count starts again
// then, or, with OwnPatience on a long start, when they beat the best of
// this start.
func (sel *Selection) advance(set Settings, restart int, polished bool, epoch int, trainAcc, selAcc float64, params []float64) {
	score := (1 - trainAcc) + (1 - selAcc)
	own := (set.OwnPatience || set.neutralOwn(restart) || set.final(restart)) && !set.probe(restart) && !polished && (sel.StartBest == nil || score < *sel.StartBest)
	if own {
		sel.StartBest = &score
	}
	switch {
	case set.beats(sel, trainAcc, selAcc):
		sel.Epoch, sel.Errors, sel.TrainAcc, sel.SelectErr, sel.SinceBest = epoch, score, trainAcc, 1-selAcc, 0
		sel.Params = append(sel.Params[:0], params...)
	case own:
		sel.SinceBest = 0
	default:
		sel.SinceBest++
	}
}

// beats reports whether an epoch with accuracies trainAcc (training set)
// and selAcc (Env.Select) ranks above sel's best: by the sum of their
// error fractions, or with TrainFirst by training errors first.
func (set Settings) beats(sel *Selection, trainAcc, selAcc float64) bool {
	if set.TrainFirst {
		return sel.Params == nil || TrainFirstBeats(1-trainAcc, 1-selAcc, 1-sel.TrainAcc, sel.SelectErr)
	}
	return (1-trainAcc)+(1-selAcc) < sel.Errors
}

// startPatience is the patience of start r (0-based): NeutralPatience for
// a long start with a neutral symbol, if set; ProbePatience for the
// probes (the starts after the Restarts long ones), but the long starts'
// for every ProbeLong-th probe; for the others
// Patience, or with Luby Patience·luby(r+1), and FirstPatience, if set, for
// the first start.
func (set Settings) startPatience(r int) int {
	switch {
	case set.final(r) && set.NeutralPatience > 0:
		return set.NeutralPatience
	case set.final(r):
		return set.Patience
	case set.neutralOwn(r):
		return set.NeutralPatience
	case set.probe(r):
		if set.ProbeLong > 0 && (r-set.Restarts)%set.ProbeLong == 0 {
			return set.Patience
		}
		return set.ProbePatience
	case r == 0 && set.FirstPatience > 0:
		return set.FirstPatience
	case set.Luby:
		return set.Patience * luby(r+1)
	}
	return set.Patience
}

// probe reports whether start r (0-based) is a probe: one of the short
// starts after the Restarts long ones.
func (set Settings) probe(r int) bool {
	return set.Probes > 0 && r > set.Restarts && r <= set.Restarts+set.Probes
}

// final reports whether start r (0-based) is one of the Final starts, which
// follow the Restarts long ones and the probes.
func (set Settings) final(r int) bool { return set.Final > 0 && r > set.Restarts+set.Probes }

// neutral is start r's neutral symbol, −1 if it has none
// (Settings.NeutralSymbols).
func (set Settings) neutral(r int) int {
	switch {
	case set.NeutralSymbols <= 0 || set.probe(r):
		return -1
	case set.final(r):
		return NeutralSymbol(r-set.Restarts-set.Probes, set.NeutralSymbols)
	}
	return NeutralSymbol(r, set.NeutralSymbols)
}

// neutralTwo reports whether start r trains with the read's two-sided
// derivative (Settings.NeutralTwoSided).
func (set Settings) neutralTwo(r int) bool {
	return set.NeutralTwoSided && set.neutral(r) >= 0
}

// neutralOwn reports whether start r has a neutral symbol and the
// patience of its own that NeutralPatience gives it.
func (set Settings) neutralOwn(r int) bool {
	return set.NeutralPatience > 0 && set.neutral(r) >= 0
}

// luby returns the i-th term (i ≥ 1) of Luby's sequence 1, 1, 2, 1, 1, 2,
// 4, 1, 1, 2, 1, 1, 2, 4, 8, …: 2^(k−1) when i = 2^k − 1, else the term at
// i − 2^(k−1) + 1 for the k with 2^(k−1) ≤ i < 2^k − 1.
func luby(i int) int {
	for {
		k := 1
		for 1<<k-1 < i {
			k++
		}
		if i == 1<<k-1 {
			return 1 << (k - 1)
		}
		i -= 1<<(k-1) - 1
	}
}

// neutral is the current start's neutral symbol, −1 if it has none (the
// polishing start has none).
func (st *runState) neutral(set Settings) int {
	if st.polishing() {
		return -1
	}
	return set.neutral(st.cp.Restart)
}

// polishDue reports whether the run, its last start ended, begins the
// polishing start (Settings.Polish): its best weights are not perfect,
// and it has not polished them yet.
func (st *runState) polishDue(set Settings) bool {
	sel := st.cp.Selection
	return set.Polish > 0 && st.cp.PolishFrom == 0 && st.cp.FinalFrom == 0 && st.cp.Restart >= set.Restarts+set.Probes &&
		sel != nil && sel.Params != nil && sel.Errors > 0
}

// finalDue reports whether the run, a start (or its polish) ended with
// imperfect best weights, begins one more of the Final starts: the
// Restarts and Probes have all run, the polish (Settings.Polish) too if
// there is one, and the final starts have starts and epochs left.
func (st *runState) finalDue(set Settings) bool {
	return set.Final > 0 && st.cp.Restart >= set.Restarts+set.Probes && st.cp.Restart < set.Restarts+set.Probes+set.Final &&
		(set.Polish == 0 || st.cp.PolishFrom > 0) && !st.outOfEpochs(set)
}

// cutShort reports whether MaxEpochs has ended the run's starts, some of
// them perhaps untaken, with imperfect best weights while it has Final
// starts to take: it then goes on to its polish and final starts as a run
// whose starts all ended does (endStarts).
func (st *runState) cutShort(set Settings) bool {
	sel := st.cp.Selection
	return set.Final > 0 && st.cp.PolishFrom == 0 && st.cp.FinalFrom == 0 && st.cp.Epoch >= set.MaxEpochs &&
		sel != nil && sel.Params != nil && sel.Errors > 0
}

// endStarts ends the starts of a run that MaxEpochs cut short: the ones
// not taken are skipped, so the final starts draw the weights of starts
// Restarts+Probes+1…, as they do in a run whose starts all ended; the
// polish comes next if there is one (polishDue), else the first final
// start.
func (st *runState) endStarts(env Env, set Settings, fresh []byte) error {
	st.cp.Restart = max(st.cp.Restart, set.Restarts+set.Probes)
	st.cp.Finished = true
	if st.polishDue(set) {
		return nil
	}
	return st.restart(env, set, fresh)
}

// outOfEpochs reports whether the run has used its epochs: MaxEpochs, not
// counting the polish's; in the final starts, MaxEpochs of their own.
func (st *runState) outOfEpochs(set Settings) bool {
	if st.cp.FinalFrom > 0 {
		return st.cp.Epoch-st.cp.FinalFrom+1 >= set.MaxEpochs
	}
	return st.cp.Epoch >= set.MaxEpochs && !st.polishing()
}

// polish begins the polishing start: the best weights, the heads' weights
// 0, a fresh curriculum (from its JSON state fresh), SGD (update) at the
// rate's first factor, and the patience count reset.
func (st *runState) polish(env Env, set Settings, fresh []byte, params []float64) error {
	sel := st.cp.Selection
	copy(params, sel.Params)
	for _, h := range env.Obj.Heads() {
		clear(h.Params)
	}
	st.cp.PolishFrom = st.cp.Epoch + 1
	return st.begin(set, fresh)
}

// polishing reports whether the run is in its polishing start (the final
// starts follow it).
func (st *runState) polishing() bool { return st.cp.PolishFrom > 0 && st.cp.FinalFrom == 0 }

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
	st.cp.Selection.SinceBest, st.cp.Selection.LRFactor, st.cp.Selection.StartBest = 0, 1, nil
	if set.SoftStackBeta0 > 0 {
		st.cp.StartEpoch = st.cp.Epoch
	}
	return nil
}

// restart begins the run's next start: new initial weights, a fresh
// curriculum (from its JSON state fresh) and optimizer, and the rate's
// factor and patience reset; the best weights so far stay. A start after
// the Restarts and Probes is a final one, and the first marks FinalFrom.
func (st *runState) restart(env Env, set Settings, fresh []byte) error {
	if st.cp.Restart >= set.Restarts+set.Probes && st.cp.FinalFrom == 0 {
		st.cp.FinalFrom = st.cp.Epoch + 1
	}
	st.cp.Restart++
	if env.Init == nil {
		return fmt.Errorf("restarts need an initializer")
	}
	if err := env.Init(st.cp.Restart); err != nil {
		return err
	}
	if err := st.begin(set, fresh); err != nil {
		return err
	}
	if st.cp.Adam != nil {
		st.cp.Adam.Reset()
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
	if b != nil && (va < b.ValidAcc || va == b.ValidAcc && trainAcc <= b.TrainAcc) {
		return
	}
	if b == nil {
		b = &Best{Params: make([]float64, len(params))}
		st.cp.Best = b
	}
	b.Epoch, b.ValidAcc, b.TrainAcc = st.cp.Epoch, va, trainAcc
	copy(b.Params, params)
}

// runState is the part of a run a checkpoint saves.
type runState struct {
	cp  Checkpoint
	pcg map[string]*rand.PCG
}

func (st *runState) save(params []float64, cur Curriculum, rec Recorder) error {
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
	return rec.Checkpoint(&st.cp)
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
