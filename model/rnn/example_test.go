package rnn_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/nspda/nspda/model/rnn"
	"github.com/nspda/nspda/nn"
)

// Every model at its default size over a 2-symbol alphabet (3 inputs with
// the end marker).
func Example() {
	for _, s := range rnn.Specs {
		m, err := s.New([]rune("ab"), nn.Options{}, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-13s %4d parameters, state %2d, higher order %v\n", s.Name, len(m.Params()), m.StateSize(), s.HigherOrder)
	}
	// Output:
	// elman         1801 parameters, state 40, higher order false
	// lstm          7081 parameters, state 80, higher order false
	// lstm-peephole 7201 parameters, state 80, higher order false
	// gru           5321 parameters, state 40, higher order false
	// mi-rnn        1921 parameters, state 40, higher order false
	// mi-lstm       7561 parameters, state 80, higher order false
	// mi-gru        5681 parameters, state 40, higher order false
	// second-order   801 parameters, state 16, higher order true
}
