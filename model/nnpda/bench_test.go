package nnpda

import (
	"math/rand/v2"
	"testing"

	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/nn/nntest"
)

// BenchmarkStepNNPDA measures an allocation-free forward and backward pass
// over a string of 20 symbols plus the end marker, one iteration per symbol,
// at the default size (third order, J = 8) with the stack reserved for 20
// symbols (nntest.BenchmarkPass).
func BenchmarkStepNNPDA(b *testing.B) {
	m, err := Specs[0].New([]rune("ab"), nn.Options{}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	m.(nn.Reserver).Reserve(20)
	nntest.BenchmarkPass(b, m, 20)
}
