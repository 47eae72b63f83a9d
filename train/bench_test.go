package train

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
)

// BenchmarkEstimators measures training throughput — forward, gradient and
// SGD update — in input characters per second, on dyck2 training strings
// with K = 4, for every estimator and order at J = 4, 8, 16 and 32.
func BenchmarkEstimators(b *testing.B) {
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
	for _, algo := range []string{"bptt", "tbptt", "rtrl", "uoro"} {
		for _, order := range []nspda.Order{nspda.Second, nspda.Third} {
			for _, J := range []int{4, 8, 16, 32} {
				b.Run(fmt.Sprintf("%s/order%d/J%d", algo, order, J), func(b *testing.B) {
					net := testNet(b, order, 4, J, 1)
					est := map[string]Estimator{"bptt": &BPTT{}, "tbptt": &TBPTT{Window: 5}, "rtrl": &RTRL{}, "uoro": &UORO{Rng: rand.New(rand.NewPCG(1, 1))}}[algo]
					grad := make([]float64, len(net.Params()))
					reads := rand.New(rand.NewPCG(2, 2))
					chars := 0
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						ex := exs[i%len(exs)]
						for j := range grad {
							grad[j] = 0
						}
						est.Gradient(net, nil, ex, 4, reads, grad)
						SGD(net.Params(), grad, 1e-4, DefaultClip)
						chars += len(ex.Syms)
					}
					b.ReportMetric(float64(chars)/b.Elapsed().Seconds(), "chars/s")
				})
			}
		}
	}
}
