package stackrnn

import (
	"math/rand/v2"
	"testing"

	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/nn/nntest"
)

// benchStep measures an allocation-free forward and backward pass over a
// string of 20 symbols plus the end marker, one iteration per symbol, at the
// default sizes with memories reserved for 20 symbols (nntest.BenchmarkPass).
func benchStep(b *testing.B, spec nn.Spec) {
	m, err := spec.New([]rune("ab"), nn.Options{}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	m.(nn.Reserver).Reserve(20)
	nntest.BenchmarkPass(b, m, 20)
}

func BenchmarkStepStackRNN(b *testing.B) { benchStep(b, Specs[0]) }

func BenchmarkStepListRNN(b *testing.B) { benchStep(b, Specs[1]) }
