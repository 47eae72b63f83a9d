package rnn

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nspda/nspda/nn"
)

func BenchmarkStepElman(b *testing.B)        { benchStep(b, "elman") }
func BenchmarkStepLSTM(b *testing.B)         { benchStep(b, "lstm") }
func BenchmarkStepLSTMPeephole(b *testing.B) { benchStep(b, "lstm-peephole") }
func BenchmarkStepGRU(b *testing.B)          { benchStep(b, "gru") }
func BenchmarkStepMIRNN(b *testing.B)        { benchStep(b, "mi-rnn") }
func BenchmarkStepMILSTM(b *testing.B)       { benchStep(b, "mi-lstm") }
func BenchmarkStepMIGRU(b *testing.B)        { benchStep(b, "mi-gru") }
func BenchmarkStepSecondOrder(b *testing.B)  { benchStep(b, "second-order") }

// benchStep times a full forward and backward pass (BPTT) over a string of
// 31 symbols and the end marker, one iteration each, at the default size
// over a 2-symbol alphabet, with preallocated records: the work of one
// training string. It reports characters (iterations) per second.
func benchStep(b *testing.B, name string) {
	m := newModel(b, name, 0, 1)
	const T = 32
	n := m.StateSize()
	rng := rand.New(rand.NewPCG(1, 1))
	in, recs, outs := make([]int, T), make([]any, T), make([]float64, T)
	states := make([][]float64, T+1)
	for t := range in {
		in[t], recs[t] = rng.IntN(2), m.NewRecord()
	}
	in[T-1] = m.InputSize() - 1
	for t := range states {
		states[t] = make([]float64, n)
	}
	ds, ds2, grad := make([]float64, n), make([]float64, n), make([]float64, len(m.Params()))
	const label = 1
	iters := 0
	for b.Loop() {
		m.Start(states[0], nil)
		for t := range T {
			outs[t] = m.Step(recs[t], states[t], states[t+1], in[t], true, true)
		}
		clear(ds2)
		for t := T - 1; t >= 0; t-- {
			m.OutVJP(recs[t], nn.Sigmoid(outs[t])-label, ds2, grad)
			clear(ds)
			m.StepVJP(recs[t], ds2, ds, grad)
			ds, ds2 = ds2, ds
		}
		iters++
	}
	b.ReportMetric(float64(T*iters)/b.Elapsed().Seconds(), "chars/s")
}

// BenchmarkKernels compares plain loops with gonum's BLAS for the three
// dense kernels at the shapes the models use (rows × columns): the choice
// of blasMin rests on it. One op is one mulVec and two each of mulTVecAdd
// and outerAdd.
func BenchmarkKernels(b *testing.B) {
	for _, shape := range [][2]int{{8, 8}, {16, 16}, {40, 40}, {160, 40}} {
		rows, cols := shape[0], shape[1]
		a, x, y, ny := make([]float64, rows*cols), make([]float64, cols), make([]float64, rows), make([]float64, rows)
		for i := range a {
			a[i] = float64(i%7) - 3
		}
		for i := range x {
			x[i] = 0.5
		}
		for _, mode := range []struct {
			name string
			min  int
		}{{"loops", 1 << 30}, {"blas", 1}} {
			b.Run(fmt.Sprintf("%dx%d/%s", rows, cols, mode.name), func(b *testing.B) {
				defer func(old int) { blasMin = old }(blasMin)
				blasMin = mode.min
				// The updates are undone with −y, so nothing grows.
				for b.Loop() {
					mulVec(y, a, x)
					for i, v := range y {
						ny[i] = -v
					}
					mulTVecAdd(x, a, y)
					mulTVecAdd(x, a, ny)
					outerAdd(a, y, x)
					outerAdd(a, ny, x)
				}
			})
		}
	}
}
