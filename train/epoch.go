package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/nspda/nspda/nn"
)

// epoch trains one epoch of start s and records it. over: the curriculum
// ended before it, and the run with it.
func (r *runner) epoch(ctx context.Context, s Start) (over bool, err error) {
	begun := time.Now()
	cp := &r.st.cp
	phase, ok := r.set.Curriculum.Next(cp.Last)
	if !ok {
		cp.Finished = true
		return true, nil
	}
	lr := r.rate(s, phase)
	beta := r.configure(s)
	subset := subsetUpTo(r.env.Train, phase.MaxLen)
	r.order.Shuffle(len(subset), func(i, j int) { subset[i], subset[j] = subset[j], subset[i] })
	lossSum, err := r.trainOn(ctx, s, phase, subset, lr)
	if err != nil {
		return false, err
	}
	if math.IsNaN(lossSum) || math.IsInf(lossSum, 0) {
		return false, fmt.Errorf("epoch %d: the epoch's summed loss is %v; stopping", cp.Epoch+1, lossSum)
	}
	cp.Epoch++
	report := judge(r.env, phase, subset, r.correct)
	m := Metrics{
		Epoch: cp.Epoch, Chars: cp.Chars, Loss: lossSum / float64(max(1, len(subset))),
		TrainAcc: 100 * report.TrainAcc, ValidAcc: 100 * report.ValidAcc, LR: lr,
		Stage: phase.Stage, MaxLen: phase.MaxLen, Strings: len(subset), Beta: beta,
		Finish: s.Kind == FinishStart,
	}
	cp.Last = &report
	if r.set.KeepBest {
		r.st.keepBest(r.env, report.TrainAcc, r.params)
	}
	if report.TrainAcc == 1 && !cp.Converged {
		cp.Converged, cp.ConvergedEpoch, cp.ConvergedChars = true, cp.Epoch, cp.Chars
	}
	if cp.Selection != nil {
		acc := r.st.selectEpoch(r.env, r.set, s, report.TrainAcc, r.params)
		m.SelectAcc = &acc
	}
	return false, r.rec.Epoch(m, time.Since(begun).Seconds())
}

// rate is the learning rate of the epoch of start s in the curriculum's
// phase: the schedule's stochastic rate, or in a fixed-rate phase its fixed
// one; Adam's constant LR0, or the start's own Rate (unless s steps by
// SGD); times the selection's factor.
func (r *runner) rate(s Start, phase Phase) float64 {
	cp, set := &r.st.cp, r.set
	var lr float64
	switch {
	case s.SGD:
		lr = set.Schedule.Rate(r.st.polishEpochs(), r.sched)
	case phase.Stochastic:
		lr = set.Schedule.Rate(cp.Epoch, r.sched)
	default:
		if cp.FixedFrom == 0 {
			cp.FixedFrom = cp.Epoch + 1
		}
		lr = set.Schedule.Fixed(cp.FixedFrom - 1)
	}
	if set.Optimizer == "adam" && !s.SGD {
		lr = set.Schedule.LR0
		if s.Rate > 0 {
			lr = s.Rate
		}
	}
	return lr
}

// configure sets the objective and the net for an epoch of start s: its
// neutral symbol and prior, its read's derivative, its stack and that
// stack's sharpness, which it returns (0: the digital stack, or none).
func (r *runner) configure(s Start) (beta float64) {
	env, set := r.env, r.set
	env.Obj.SetNeutral(s.Neutral)
	env.Obj.SetFinal(s.FinalPrior)
	if ts, ok := env.Net.(TwoSider); ok && set.NeutralTwoSided {
		ts.SetTwoSided(s.TwoSided)
	}
	if sh, ok := env.Net.(Sharpener); ok && set.SoftStackBeta0 > 0 {
		beta = set.sharpness(r.st.cp.Epoch - r.st.cp.StartEpoch)
		if s.Beta > 0 {
			beta = s.Beta
		}
		sh.SetSharpness(beta)
		sh.SetSoft(s.Soft)
		if !s.Soft {
			beta = 0 // no sharpness on the digital stack
		}
	}
	return beta
}

// trainOn trains on the strings subset (indices into env.Train, in their
// order) at rate lr, and returns their summed loss.
func (r *runner) trainOn(ctx context.Context, s Start, phase Phase, subset []int, lr float64) (float64, error) {
	nz := r.set.Noise
	if phase.WeightNoise && r.set.StageNoise.Percent > nz.Percent {
		nz = r.set.StageNoise
	}
	lossSum := 0.0
	batch, inBatch := max(1, r.set.Batch), 0
	cp, env := &r.st.cp, r.env
	for n, idx := range subset {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		ex := env.Train[idx]
		if r.lock != nil {
			if r.pending = append(r.pending, ex); len(r.pending) < batch && n < len(subset)-1 {
				continue
			}
			loss, err := r.lockBatch(s, n, len(subset), lr)
			if err != nil {
				return 0, err
			}
			lossSum += loss
			continue
		}
		noisy := nz.Percent > 0 && env.Tensors != nil
		if noisy {
			copy(r.clean, r.params)
			r.perm = nz.Apply(r.params, env.Tensors, r.noise, r.perm)
		}
		if inBatch == 0 {
			for _, g := range r.grads {
				nn.Zero(g)
			}
		}
		loss := r.set.Estimator.Gradient(env.Net, env.Obj, ex, r.set.Refine, r.reads, r.grads[0])
		if noisy {
			copy(r.params, r.clean)
		}
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			return 0, fmt.Errorf("epoch %d, string %d of %d: loss is %v; stopping", cp.Epoch+1, n+1, len(subset), loss)
		}
		if inBatch++; inBatch == batch || n == len(subset)-1 {
			if err := r.st.update(r.set, s, r.vecs, r.grads, inBatch, lr); err != nil {
				return 0, fmt.Errorf("epoch %d, string %d of %d: %v; stopping", cp.Epoch+1, n+1, len(subset), err)
			}
			inBatch = 0
		}
		cp.Chars += int64(len(ex.Syms))
		lossSum += loss
	}
	return lossSum, nil
}

// lockBatch trains the lock-step batch gathered in r.pending, which ends
// with string n of an epoch of total, at rate lr, and returns its loss.
func (r *runner) lockBatch(s Start, n, total int, lr float64) (float64, error) {
	cp, env := &r.st.cp, r.env
	for len(r.lockRng) < len(r.pending) {
		pcg := rand.NewPCG(0, 0)
		r.lockPCG, r.lockRng = append(r.lockPCG, pcg), append(r.lockRng, rand.New(pcg))
	}
	for b := range r.pending {
		r.lockPCG[b].Seed(r.reads.Uint64(), r.reads.Uint64())
	}
	for _, g := range r.grads {
		nn.Zero(g)
	}
	loss, err := r.lock.GradientBatch(env.Net, env.Obj, r.pending, r.set.Refine, r.lockRng[:len(r.pending)], r.grads[0])
	if err != nil {
		return 0, err
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return 0, fmt.Errorf("epoch %d, strings %d–%d of %d: loss is %v; stopping", cp.Epoch+1, n+2-len(r.pending), n+1, total, loss)
	}
	if err := r.st.update(r.set, s, r.vecs, r.grads, len(r.pending), lr); err != nil {
		return 0, fmt.Errorf("epoch %d, string %d of %d: %v; stopping", cp.Epoch+1, n+1, total, err)
	}
	for _, e := range r.pending {
		cp.Chars += int64(len(e.Syms))
	}
	r.pending = r.pending[:0]
	return loss, nil
}

// update applies one optimizer step of start s from the gradients of n
// strings summed in grads.
func (st *runState) update(set Settings, s Start, vecs, grads [][]float64, n int, lr float64) error {
	if n > 1 {
		scale(grads, 1/float64(n))
	}
	if set.ClipNorm > 0 {
		clipNorm(grads, set.ClipNorm)
	}
	if st.cp.Adam != nil && !s.SGD {
		return st.cp.Adam.Step(vecs, grads, lr)
	}
	for i, v := range vecs {
		if err := SGD(v, grads[i], lr, set.Clip); err != nil {
			return err
		}
	}
	return nil
}

// selectEpoch scores the epoch of start s just ended (errors on the
// training set plus on env.Select), keeps its weights if they are the best
// so far, halves the rate and returns to the best weights on a plateau, and
// ends the start when the best is perfect, patience runs out or its epochs
// do. It returns the % of env.Select classified correctly.
func (st *runState) selectEpoch(env Env, set Settings, s Start, trainAcc float64, params []float64) float64 {
	acc := accuracy(env, env.Select)
	sel := st.cp.Selection
	sel.advance(s, st.cp.Epoch, trainAcc, acc, params)
	spent := s.FromBest && st.polishEpochs() >= s.Epochs
	if sel.Errors == 0 || sel.SinceBest >= s.Patience || spent {
		st.cp.Finished = true
	}
	return 100 * acc
}

// advance scores epoch (of start s) by its accuracies on the training set
// and the select split: its weights become the best if they beat the best
// of every start so far, and the patience count starts again then, or,
// when s has a patience of its own, when they beat the best of s.
func (sel *Selection) advance(s Start, epoch int, trainAcc, selAcc float64, params []float64) {
	score := (1 - trainAcc) + (1 - selAcc)
	own := s.Own && (sel.StartBest == nil || score < *sel.StartBest)
	if own {
		sel.StartBest = &score
	}
	switch {
	case sel.beatenBy(score):
		sel.Epoch, sel.Errors, sel.TrainAcc, sel.SinceBest = epoch, score, trainAcc, 0
		sel.Params = append(sel.Params[:0], params...)
	case own:
		sel.SinceBest = 0
	default:
		sel.SinceBest++
	}
}

// beatenBy reports whether weights of score (their error fraction on the
// training set plus on Env.Select) rank above sel's best: a lower sum (a
// tie keeps the best). Before the first epoch the best is +Inf.
func (sel *Selection) beatenBy(score float64) bool { return score < sel.Errors }
