// Package nspda implements the neural state pushdown automaton of Mali,
// Ororbia and Giles: a second- or third-order recurrent network of binary state
// neurons whose ternary action neurons drive a digital stack, and whose read
// neurons show the network what is on top of it.
//
// Shapes (docs/design.md section 2). L is the alphabet size, J the number of state
// neurons, A the number of action neurons. The network reads R = L+1 read
// neurons (one per stack symbol and one for the empty stack ⊥) and X = L+1
// input neurons (one per symbol and one for the end-of-string marker $).
//
//	third order (M2):  Ws is J×J×R×X, Wa is A×J×R×X
//	second order (M1): Ws is J×J×V, Wa is A×J×V, with v = [r; x] of length V = R+X
//
// Storage is chosen for one-hot inputs and binary states: the third-order
// tensors are stored input-major, Ws[l][j][i][k], so that a step touches one
// contiguous J×R block per active state neuron j; the second-order tensors
// are stored Ws[j][i][m].
package nspda

import (
	"fmt"

	"github.com/nspda/nspda/internal/limits"
	"github.com/nspda/nspda/nn"
)

// Order is the order of a network's weight tensors.
type Order int

// The two orders of the paper.
const (
	Second Order = 2 // M1: state × [read; input]
	Third  Order = 3 // M2: state × read × input
)

// Shape holds a network's sizes.
type Shape struct {
	Order Order
	L     int // alphabet size
	J     int // state neurons
	A     int // action neurons
}

// R is the number of read neurons: one per stack symbol plus ⊥.
func (s Shape) R() int { return s.L + 1 }

// X is the number of input neurons: one per symbol plus the end marker $.
func (s Shape) X() int { return s.L + 1 }

// V is the length of second order's concatenated vector [r; x].
func (s Shape) V() int { return s.R() + s.X() }

// ctx is the number of weights per (output neuron, state neuron) pair.
func (s Shape) ctx() int {
	if s.Order == Second {
		return s.V()
	}
	return s.R() * s.X()
}

// NumParams is the total number of parameters. It is meaningful only for a
// shape that Validate accepts.
func (s Shape) NumParams() int {
	sz := s.sizes()
	return nn.Sum(sz[:])
}

// sizes returns the lengths of Ws, Bs, Wa, Ba, Wo and Bo, in storage order.
func (s Shape) sizes() [6]int {
	c := s.ctx()
	return [6]int{s.J * s.J * c, s.J, s.A * s.J * c, s.A, s.J, 1}
}

// Limits on a shape, so that a corrupt or hostile model file is refused
// before anything is allocated: each of L, J and A is at most MaxUnits, and
// NumParams at most MaxParams (512 MiB of float64); package internal/limits
// holds the bounds.
const (
	MaxUnits  = limits.Units
	MaxParams = limits.Params
)

// Validate reports a shape that cannot be built: a bad order, a size below 1
// or above MaxUnits, or more than MaxParams parameters.
func (s Shape) Validate() error {
	switch {
	case s.Order != Second && s.Order != Third:
		return fmt.Errorf("order must be 2 or 3, not %d", s.Order)
	case s.L < 1:
		return fmt.Errorf("alphabet must have at least one symbol")
	case s.J < 1:
		return fmt.Errorf("need at least one state neuron, not %d", s.J)
	case s.A < 1:
		return fmt.Errorf("need at least one action neuron, not %d", s.A)
	case s.L > MaxUnits:
		return fmt.Errorf("alphabet has %d symbols, more than the limit of %d", s.L, MaxUnits)
	case s.J > MaxUnits:
		return fmt.Errorf("state neurons J = %d, more than the limit of %d", s.J, MaxUnits)
	case s.A > MaxUnits:
		return fmt.Errorf("action neurons A = %d, more than the limit of %d", s.A, MaxUnits)
	}
	// With every size at most MaxUnits = 2^12 the largest product, J·J·R·X,
	// is below 2^50: no overflow in float64 (exact to 2^53) or a 64-bit int.
	c := float64(s.ctx())
	if n := float64(s.J)*float64(s.J)*c + float64(s.A)*float64(s.J)*c + float64(s.A+2*s.J+1); n > MaxParams {
		return fmt.Errorf("shape (order %d, L=%d, J=%d, A=%d) has %.0f parameters, more than the limit of %d", s.Order, s.L, s.J, s.A, n, MaxParams)
	}
	return nil
}

// Model is an NSPDA: its shape, alphabet and parameters. All parameters live in
// one flat slice, Params; Ws, Bs, Wa, Ba, Wo and Bo are views into it.
type Model struct {
	Shape
	Alphabet []rune

	// Neurons optionally names each state neuron (for a programmed network,
	// the PDA state it stands for); nil or empty strings when unknown.
	Neurons []string

	// EvalRefine is the number of state iterations per symbol used when the
	// network classifies (iterative refinement at evaluation time); 1 applies
	// each transition once, as a programmed network requires.
	EvalRefine int

	Params []float64
	Ws, Bs []float64 // to-state weights and biases
	Wa, Ba []float64 // to-action weights and biases
	Wo     []float64 // output weights (length J)
	Bo     []float64 // output bias (length 1)
}

// New returns a model with all parameters zero. Its state starts at neuron 0.
func New(shape Shape, alphabet []rune) (*Model, error) {
	if err := shape.Validate(); err != nil {
		return nil, err
	}
	if len(alphabet) != shape.L {
		return nil, fmt.Errorf("alphabet has %d symbols, shape says %d", len(alphabet), shape.L)
	}
	m := &Model{Shape: shape, Alphabet: append([]rune(nil), alphabet...), EvalRefine: 1}
	m.Params = make([]float64, shape.NumParams())
	m.bind()
	return m, nil
}

// bind points the views into Params.
func (m *Model) bind() {
	sz := m.sizes()
	nn.Cut(m.Params, sz[:], &m.Ws, &m.Bs, &m.Wa, &m.Ba, &m.Wo, &m.Bo)
}

// Clone returns a deep copy of m.
func (m *Model) Clone() *Model {
	c := *m
	c.Alphabet = append([]rune(nil), m.Alphabet...)
	c.Neurons = append([]string(nil), m.Neurons...)
	c.Params = append([]float64(nil), m.Params...)
	c.bind()
	return &c
}

// Index3 is the offset in Ws (with out = J) or Wa (with out = A) of the
// third-order weight from state neuron j, read neuron k and input l to output
// neuron i.
func (s Shape) Index3(out, i, j, k, l int) int {
	return ((l*s.J+j)*out+i)*s.R() + k
}

// Index2 is the offset in Ws (out = J) or Wa (out = A) of the second-order
// weight from state neuron j and component m of [r; x] to output neuron i.
func (s Shape) Index2(out, i, j, m int) int {
	return (j*out+i)*s.V() + m
}

// NeuronName returns the name of state neuron j, or "z<j>".
func (m *Model) NeuronName(j int) string {
	if j < len(m.Neurons) && m.Neurons[j] != "" {
		return m.Neurons[j]
	}
	return fmt.Sprintf("z%d", j)
}

// Tensor names one of a model's parameter tensors.
type Tensor int

// The parameter tensors.
const (
	TWs Tensor = iota // to-state weights
	TBs               // state biases
	TWa               // to-action weights
	TBa               // action biases
	TWo               // output weights
	TBo               // output bias
)

var tensorNames = [...]string{"Ws", "bs", "Wa", "ba", "Wo", "bo"}

func (t Tensor) String() string { return tensorNames[t] }

// Param returns a pointer to one parameter. For TWs and TWa, i is the output
// neuron, j the state neuron, and (k, l) the read and input neurons (third
// order) or k the index into [r; x] (second order, l ignored). Biases and
// output weights use i only. It panics on an index out of range.
func (m *Model) Param(t Tensor, i, j, k, l int) *float64 {
	switch t {
	case TWs, TWa:
		w, out := m.Ws, m.J
		if t == TWa {
			w, out = m.Wa, m.A
		}
		if i >= out || j >= m.J || k >= m.ctxRow() || (m.Order == Third && l >= m.X()) {
			panic(fmt.Sprintf("nspda: %s index (%d,%d,%d,%d) out of range", t, i, j, k, l))
		}
		if m.Order == Third {
			return &w[m.Index3(out, i, j, k, l)]
		}
		return &w[m.Index2(out, i, j, k)]
	case TBs:
		return &m.Bs[i]
	case TBa:
		return &m.Ba[i]
	case TWo:
		return &m.Wo[i]
	}
	return &m.Bo[0]
}

// ctxRow is the range of the k index: R (third order) or V (second order).
func (s Shape) ctxRow() int {
	if s.Order == Second {
		return s.V()
	}
	return s.R()
}
