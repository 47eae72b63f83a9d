package train

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
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
		st.pcg[name] = rand.NewPCG(set.Seed, hash64(name))
	}
	if from != nil {
		if err := st.restore(from, params, set.Curriculum); err != nil {
			return Result{}, err
		}
	}
	rng := func(name string) *rand.Rand { return rand.New(st.pcg[name]) }
	order, reads, noise, sched := rng("order"), rng("reads"), rng("noise"), rng("schedule")
	if u, ok := set.Estimator.(RandUser); ok {
		u.SetRand(rng("uoro"))
	}
	grad := make([]float64, len(params))
	clean := make([]float64, len(params))
	var perm []int // the noise regularizer's scratch
	correct := make([]bool, len(env.Train))
	for !st.cp.Converged && !st.cp.Finished && st.cp.Epoch < set.MaxEpochs {
		start := time.Now()
		phase, ok := set.Curriculum.Next(st.cp.Last)
		if !ok {
			st.cp.Finished = true
			break
		}
		var lr float64
		if phase.Stochastic {
			lr = set.Schedule.Rate(st.cp.Epoch, sched)
		} else {
			if st.cp.FixedFrom == 0 {
				st.cp.FixedFrom = st.cp.Epoch + 1
			}
			lr = set.Schedule.Fixed(st.cp.FixedFrom - 1)
		}
		subset := subsetUpTo(env.Train, phase.MaxLen)
		order.Shuffle(len(subset), func(i, j int) { subset[i], subset[j] = subset[j], subset[i] })
		nz := set.Noise
		if phase.WeightNoise && set.StageNoise.Percent > nz.Percent {
			nz = set.StageNoise
		}
		lossSum := 0.0
		for n, idx := range subset {
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
			ex := env.Train[idx]
			if nz.Percent > 0 && env.Tensors != nil {
				copy(clean, params)
				perm = nz.Apply(params, env.Tensors, noise, perm)
			}
			nn.Zero(grad)
			loss := set.Estimator.Gradient(env.Net, ex, set.Refine, reads, grad)
			if nz.Percent > 0 && env.Tensors != nil {
				copy(params, clean)
			}
			if math.IsNaN(loss) || math.IsInf(loss, 0) {
				return Result{}, fmt.Errorf("epoch %d, string %d of %d: loss is %v; stopping", st.cp.Epoch+1, n+1, len(subset), loss)
			}
			if err := SGD(params, grad, lr, set.Clip); err != nil {
				return Result{}, fmt.Errorf("epoch %d, string %d of %d: %v; stopping", st.cp.Epoch+1, n+1, len(subset), err)
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
			Stage: phase.Stage, MaxLen: phase.MaxLen, Strings: len(subset),
		}
		st.cp.Last = &report
		if set.KeepBest {
			st.keepBest(env, report.TrainAcc, params)
		}
		if report.TrainAcc == 1 {
			st.cp.Converged, st.cp.ConvergedEpoch, st.cp.ConvergedChars = true, st.cp.Epoch, st.cp.Chars
		}
		if err := rec.Epoch(m, time.Since(start).Seconds()); err != nil {
			return Result{}, err
		}
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
	return res, nil
}

// keepBest records the current weights as the best so far if they classify
// the whole validation set better than the best so far (ties: better on the
// training set; otherwise the earlier epoch stays).
func (st *runState) keepBest(env Env, trainAcc float64, params []float64) {
	cls := env.Classifier()
	right := 0
	for _, ex := range env.Valid {
		if ok, _ := cls.Classify(ex.Syms); ok == (ex.Label == 1) {
			right++
		}
	}
	va := ratio(right, len(env.Valid))
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
		return fmt.Errorf("checkpoint has %d parameters, the model %d", len(from.Params), len(params))
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
	cls := env.Classifier()
	right := 0
	for i, ex := range env.Train {
		ok, _ := cls.Classify(ex.Syms)
		correct[i] = ok == (ex.Label == 1)
		if correct[i] {
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
	vr, vn := 0, 0
	for _, ex := range env.Valid {
		if len(ex.Syms) > phase.ValidMax {
			continue
		}
		vn++
		if ok, _ := cls.Classify(ex.Syms); ok == (ex.Label == 1) {
			vr++
		}
	}
	r.ValidAcc = ratio(vr, vn)
	return r
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

func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
