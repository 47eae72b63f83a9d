package train

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/nn"
)

// BenchmarkEstimators measures training throughput — forward, gradient and
// SGD update — in input characters per second, on dyck2 training strings
// with K = 4, for every estimator and order at J = 4, 8, 16 and 32.
func BenchmarkEstimators(b *testing.B) {
	exs := dyck2Examples(b)
	for _, algo := range []string{"bptt", "tbptt", "rtrl", "uoro"} {
		for _, order := range []nspda.Order{nspda.Second, nspda.Third} {
			for _, J := range []int{4, 8, 16, 32} {
				b.Run(fmt.Sprintf("%s/order%d/J%d", algo, order, J), func(b *testing.B) {
					net := testNet(b, order, 4, J, 1)
					est := map[string]Estimator{"bptt": &BPTT{}, "tbptt": &TBPTT{Window: 5}, "rtrl": &RTRL{}, "uoro": &UORO{Rng: rand.New(rand.NewPCG(1, 1))}}[algo]
					benchSGD(b, net, est, exs, 4)
				})
			}
		}
	}
}

// dyck2Examples are the first 200 Dyck-2 training strings of data seed 1.
func dyck2Examples(b *testing.B) []Example {
	lang, _ := grammar.Builtin("dyck2")
	ds, err := dataset.GenerateSplit(lang, "train", 1)
	if err != nil {
		b.Fatal(err)
	}
	exs := make([]Example, 0, 200)
	for _, e := range ds[:200] {
		syms, _ := lang.PDA.Encode(e.String)
		exs = append(exs, Example{Syms: syms, Label: float64(e.Label)})
	}
	return exs
}

// BenchmarkSoftStack measures BPTT's training throughput (forward, gradient,
// SGD update; input characters per second) at third order, J = 8, K = 4 on
// Dyck-2's training strings, on the digital stack and on the superposition
// stack reserved for 21 symbols (D = 23, the training strings) and for 40
// (D = 42, what a run with the select split reserves).
func BenchmarkSoftStack(b *testing.B) {
	exs := dyck2Examples(b)
	for _, tc := range []struct {
		name   string
		maxLen int
	}{{"digital", 0}, {"soft/D23", 21}, {"soft/D42", 40}} {
		b.Run(tc.name, func(b *testing.B) {
			net := testNet(b, nspda.Third, 4, 8, 1)
			if tc.maxLen > 0 {
				net.SoftStack, net.Beta = true, 2
				net.Reserve(tc.maxLen)
			}
			benchSGD(b, net, &BPTT{}, exs, 4)
		})
	}
}

// benchSGD measures est's training throughput on exs with online SGD:
// forward, gradient and update, in input characters per second.
func benchSGD(b *testing.B, net nn.Net, est Estimator, exs []Example, K int) {
	grad := make([]float64, len(net.Params()))
	reads := rand.New(rand.NewPCG(2, 2))
	chars := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ex := exs[i%len(exs)]
		clear(grad)
		est.Gradient(net, nil, ex, K, reads, grad)
		SGD(net.Params(), grad, 1e-4, DefaultClip)
		chars += len(ex.Syms)
	}
	b.ReportMetric(float64(chars)/b.Elapsed().Seconds(), "chars/s")
}

// BenchmarkRecipes measures training throughput of the paper's path (online
// SGD, the copied label) beside the default recipe's (Adam on minibatches
// of 16 with norm clipping, per-step viability targets and the
// next-symbol-set head), with and without the action loss: forward,
// gradient and update, BPTT, third order, J = 8, K = 1 and 4, Dyck-2
// training strings, in input characters per second.
func BenchmarkRecipes(b *testing.B) {
	lang, _ := grammar.Builtin("dyck2")
	oracle, err := grammar.NewOracle(lang.PDA)
	if err != nil {
		b.Fatal(err)
	}
	exs := dyck2Examples(b)
	for i := range exs {
		ex := &exs[i]
		tg := oracle.Targets(ex.Syms)
		ex.Out, ex.Next, ex.Ops = make([]float64, len(ex.Syms)+1), tg.Next, make([]int8, len(ex.Syms))
		for t, v := range tg.Viable {
			if v {
				ex.Out[t] = 1
			}
		}
		for t, op := range tg.Ops {
			ex.Ops[t] = int8(op)
		}
	}
	recipes := []struct {
		name   string
		adam   bool
		action float64
	}{{"paper-sgd-online", false, 0}, {"default-adam-batch16", true, 0}, {"default-adam-batch16+action", true, 1}}
	for _, r := range recipes {
		for _, K := range []int{1, 4} {
			b.Run(fmt.Sprintf("%s/K%d", r.name, K), func(b *testing.B) {
				net := testNet(b, nspda.Third, 4, 8, 1)
				env := Env{Net: net}
				if r.adam {
					rng := rand.New(rand.NewPCG(3, 3))
					env.Obj = &Objective{Next: NewHead(5, net.StateSize(), 0.1, rng), NextWeight: 1, ActionWeight: r.action}
				}
				vecs, grads := trained(env)
				st := &runState{}
				set := Settings{Clip: DefaultClip}
				if r.adam {
					n := 0
					for _, v := range vecs {
						n += len(v)
					}
					st.cp.Adam, set.Batch, set.ClipNorm = NewAdam(n), 16, 5
				}
				est := &BPTT{}
				reads := rand.New(rand.NewPCG(2, 2))
				chars, inBatch := 0, 0
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					ex := exs[i%len(exs)]
					if !r.adam {
						ex.Out, ex.Next, ex.Ops = nil, nil, nil
					}
					if inBatch == 0 {
						for _, g := range grads {
							clear(g)
						}
					}
					est.Gradient(net, env.Obj, ex, K, reads, grads[0])
					if inBatch++; inBatch == max(1, set.Batch) {
						if err := st.update(set, Start{}, vecs, grads, inBatch, 1e-4); err != nil {
							b.Fatal(err)
						}
						inBatch = 0
					}
					chars += len(ex.Syms)
				}
				b.ReportMetric(float64(chars)/b.Elapsed().Seconds(), "chars/s")
			})
		}
	}
}

// BenchmarkThroughput measures training throughput — forward, gradient and
// update — in input characters per second, third order, K = 4, on Dyck-2's
// training strings: online is the paper's path (BPTT one string at a time,
// SGD after each), batch32 the lock-step minibatch (BatchBPTT on 32
// strings, then one SGD step on their mean gradient).
func BenchmarkThroughput(b *testing.B) {
	exs := dyck2Examples(b)
	for _, J := range []int{8, 32} {
		b.Run(fmt.Sprintf("online/J%d", J), func(b *testing.B) {
			benchSGD(b, testNet(b, nspda.Third, 4, J, 1), &BPTT{}, exs, 4)
		})
	}
	for _, J := range []int{8, 32} {
		b.Run(fmt.Sprintf("batch32/J%d", J), func(b *testing.B) {
			benchBatch(b, testNet(b, nspda.Third, 4, J, 1), exs, 32, 4)
		})
	}
}

// benchBatch measures BatchBPTT's training throughput on exs in minibatches
// of B strings, one SGD step on each batch's mean gradient.
func benchBatch(b *testing.B, net *nspda.Net, exs []Example, B, K int) {
	step := newLockStep(net, B)
	batch := make([]Example, B)
	chars := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		chars += nextBatch(batch, exs, i)
		step.run(b, net, batch, K)
	}
	b.ReportMetric(float64(chars)/b.Elapsed().Seconds(), "chars/s")
}

// lockStep trains a net in lock-step minibatches of B strings: BatchBPTT's
// gradient, string k's reads drawn from PCG(2, k), then one SGD step on the
// batch's mean gradient.
type lockStep struct {
	est  *BatchBPTT
	rngs []*rand.Rand
	grad []float64
}

func newLockStep(net *nspda.Net, B int) *lockStep {
	s := &lockStep{est: &BatchBPTT{}, rngs: make([]*rand.Rand, B), grad: make([]float64, len(net.Params()))}
	for i := range s.rngs {
		s.rngs[i] = rand.New(rand.NewPCG(2, uint64(i)))
	}
	return s
}

// run trains net on one batch of len(s.rngs) strings.
func (s *lockStep) run(b *testing.B, net *nspda.Net, batch []Example, K int) {
	clear(s.grad)
	if _, err := s.est.GradientBatch(net, nil, batch, K, s.rngs, s.grad); err != nil {
		b.Fatal(err)
	}
	scale([][]float64{s.grad}, 1/float64(len(batch)))
	if err := SGD(net.Params(), s.grad, 1e-4, DefaultClip); err != nil {
		b.Fatal(err)
	}
}

// nextBatch fills batch with the i-th run of len(batch) strings of exs,
// cycling, and returns their number of characters.
func nextBatch(batch, exs []Example, i int) int {
	chars := 0
	for k := range batch {
		batch[k] = exs[(i*len(batch)+k)%len(exs)]
		chars += len(batch[k].Syms)
	}
	return chars
}

// BenchmarkThroughputPaired is BenchmarkThroughput's online and batch32
// paths interleaved — each iteration trains one batch of 32 strings online,
// then the same strings in lock-step, each timed — so that on a shared
// machine both see the same load; it reports both rates and their ratio.
func BenchmarkThroughputPaired(b *testing.B) {
	exs := dyck2Examples(b)
	const B, K = 32, 4
	for _, J := range []int{8, 32} {
		b.Run(fmt.Sprintf("J%d", J), func(b *testing.B) {
			on, bat := testNet(b, nspda.Third, 4, J, 1), testNet(b, nspda.Third, 4, J, 1)
			est, lock := &BPTT{}, newLockStep(bat, B)
			g1 := make([]float64, len(on.Params()))
			reads := rand.New(rand.NewPCG(2, 2))
			batch := make([]Example, B)
			var tOn, tBat time.Duration
			chars := 0
			for i := 0; i < b.N; i++ {
				chars += nextBatch(batch, exs, i)
				t0 := time.Now()
				for _, ex := range batch {
					clear(g1)
					est.Gradient(on, nil, ex, K, reads, g1)
					if err := SGD(on.Params(), g1, 1e-4, DefaultClip); err != nil {
						b.Fatal(err)
					}
				}
				t1 := time.Now()
				lock.run(b, bat, batch, K)
				tOn, tBat = tOn+t1.Sub(t0), tBat+time.Since(t1)
			}
			b.ReportMetric(float64(chars)/tOn.Seconds(), "online-chars/s")
			b.ReportMetric(float64(chars)/tBat.Seconds(), "batch32-chars/s")
			b.ReportMetric(tOn.Seconds()/tBat.Seconds(), "batch/online")
		})
	}
}
