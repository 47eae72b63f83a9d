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
	exs := dyck2Examples(b)
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
			est := &BPTT{}
			grad := make([]float64, len(net.Params()))
			reads := rand.New(rand.NewPCG(2, 2))
			chars := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ex := exs[i%len(exs)]
				clear(grad)
				est.Gradient(net, nil, ex, 4, reads, grad)
				SGD(net.Params(), grad, 1e-4, DefaultClip)
				chars += len(ex.Syms)
			}
			b.ReportMetric(float64(chars)/b.Elapsed().Seconds(), "chars/s")
		})
	}
}
