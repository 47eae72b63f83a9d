package train

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
)

// stepClassifier classifies as the Runner did before its read tables:
// Step over the string and the end marker L.
type stepClassifier struct {
	r *nspda.Runner
	L int
}

func (c stepClassifier) Classify(syms []int) (bool, float64) {
	c.r.Reset()
	for _, l := range syms {
		c.r.Step(l)
	}
	c.r.Step(c.L)
	return c.r.Prediction() > 0.5, c.r.Prediction()
}

// BenchmarkEpochCheck sets the per-epoch check of the training set against
// an epoch of training: every iteration trains one epoch of the paper's
// online path over Dyck-2's training set of data seed 1 (BPTT, K = 4, SGD
// after each string, third order), then classifies the whole set as the
// per-epoch check does (accuracy over env.EvalWorkers = GOMAXPROCS
// goroutines), once with the Runner's Step as before the read tables and
// once with Runner.Classify. It reports both checks' time as a fraction of
// the epoch's; both checks must count the same right answers.
func BenchmarkEpochCheck(b *testing.B) {
	lang, _ := grammar.Builtin("dyck2")
	ds, err := dataset.GenerateSplit(lang, "train", 1)
	if err != nil {
		b.Fatal(err)
	}
	exs := make([]Example, len(ds))
	for i, e := range ds {
		syms, _ := lang.PDA.Encode(e.String)
		exs[i] = Example{Syms: syms, Label: float64(e.Label)}
	}
	for _, J := range []int{8, 32} {
		b.Run(fmt.Sprintf("J%d", J), func(b *testing.B) {
			net := testNet(b, nspda.Third, 4, J, 1)
			grad := make([]float64, len(net.Params()))
			reads := rand.New(rand.NewPCG(2, 2))
			env := Env{Net: net, EvalWorkers: runtime.GOMAXPROCS(0)}
			var epoch, step, tables time.Duration
			for b.Loop() {
				t0 := time.Now()
				for _, ex := range exs {
					clear(grad)
					(&BPTT{}).Gradient(net, nil, ex, 4, reads, grad)
					SGD(net.Params(), grad, 1e-3, DefaultClip)
				}
				t1 := time.Now()
				env.Classifier = func() evaluate.Classifier { return stepClassifier{net.Model.NewRunner(), 4} }
				a := accuracy(env, exs)
				t2 := time.Now()
				env.Classifier = func() evaluate.Classifier { return net.Classifier(1) }
				c := accuracy(env, exs)
				t3 := time.Now()
				if a != c {
					b.Fatalf("accuracy %v with Step, %v with Classify", a, c)
				}
				epoch, step, tables = epoch+t1.Sub(t0), step+t2.Sub(t1), tables+t3.Sub(t2)
			}
			b.ReportMetric(step.Seconds()/epoch.Seconds(), "step-check/epoch")
			b.ReportMetric(tables.Seconds()/epoch.Seconds(), "check/epoch")
			b.ReportMetric(step.Seconds()/tables.Seconds(), "speedup")
		})
	}
}
