package nnpda

import (
	"github.com/nspda/nspda/nn/nntest"
	"math/rand/v2"
	"testing"

	"github.com/nspda/nspda/nn"
)

// BenchmarkStepNNPDA measures an allocation-free forward and backward pass
// over a string of 20 symbols plus the end marker, one iteration per symbol,
// at the default size (third order, J = 8) with the stack reserved for 20
// symbols. chars/s counts the 21 inputs.
func BenchmarkStepNNPDA(b *testing.B) {
	m, err := Specs[0].New([]rune("ab"), nn.Options{}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	m.(nn.Reserver).Reserve(20)
	rng := rand.New(rand.NewPCG(2, 2))
	syms := make([]int, 20)
	for i := range syms {
		syms[i] = rng.IntN(2)
	}
	bp := nntest.NewPass(m, len(syms))
	bp.JVP = false
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		bp.Run(syms, 1)
	}
	b.ReportMetric(float64(b.N*(len(syms)+1))/b.Elapsed().Seconds(), "chars/s")
}
