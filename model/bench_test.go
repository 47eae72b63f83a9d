package model

import (
	"math/rand/v2"
	"testing"

	"github.com/nspda/nspda/nn/nntest"
)

// BenchmarkStepNSPDA measures the NSPDA under the baselines' benchmark
// conditions (model/rnn, model/stackrnn, model/nnpda BenchmarkStep*): an
// allocation-free forward and backward pass over a string of 20 symbols plus
// the end marker, one iteration per symbol, no parameter update, a 2-symbol
// alphabet; J = 8, both orders. chars/s counts the 21 inputs.
func BenchmarkStepNSPDA(b *testing.B) {
	for _, order := range []int{2, 3} {
		b.Run([]string{2: "M1", 3: "M2"}[order], func(b *testing.B) {
			spec, err := Lookup("nspda")
			if err != nil {
				b.Fatal(err)
			}
			m, err := spec.New([]rune("ab"), opts(spec, 8, map[string]any{"order": order}), rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				b.Fatal(err)
			}
			nntest.BenchmarkPass(b, m, 20)
		})
	}
}
