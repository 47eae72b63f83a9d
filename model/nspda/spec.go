package nspda

import (
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"

	"github.com/nspda/nspda/nn"
)

// Init is the half-width of the uniform distribution the NSPDA's trainable
// weights start from.
const Init = 0.5

// Specs lists the package's model for the registry: the NSPDA, which reads
// and writes its own file format (Net.Encode, Decode) and classifies with its
// fast Runner (Net.Classifier).
var Specs = []nn.Spec{{
	Name:        "nspda",
	Description: "neural state pushdown automaton: binary state neurons driving a digital stack (this paper)",
	HigherOrder: true,
	Algo:        "bptt", // UORO, the paper's choice, did not converge for us (docs/training.md)
	Options:     func() nn.ModelOptions { return DefaultOptions() },
	LockStep:    true,
	Size:        size,
	New:         newNet,
	Load: func(alphabet []rune, config json.RawMessage, params []float64) (nn.Model, error) {
		return nil, errors.New("nspda models have their own file layout")
	},
	Decode: func(r io.Reader) (nn.Model, int, error) {
		m, err := Decode(r)
		if err != nil {
			return nil, 0, err
		}
		return NewNet(m), m.EvalRefine, nil
	},
}}

// size draws J for a PDA of m states by the rule: the paper's, M + U(2,6)
// at third order and M + U(12,29) at second; the wide rule, M + U(12,29)
// at both orders; the small rule, M + U(2,6) at both.
func size(m int, opt nn.Options, rule nn.SizeRule, rng *rand.Rand) int {
	wide := rule == nn.SizeWide
	if rule == nn.SizePaper {
		o, err := options(opt.Own)
		wide = err == nil && o.Order == 2
	}
	lo, hi := 2, 6
	if wide {
		lo, hi = 12, 29
	}
	return m + lo + rng.IntN(hi-lo+1)
}

// newNet builds an NSPDA of the options' order (default third) with
// opt.Hidden state neurons (default 8) and Options.Actions action neurons
// (default: as many as symbols), its weights drawn from U(−Init, Init).
func newNet(alphabet []rune, opt nn.Options, rng *rand.Rand) (nn.Model, error) {
	own, err := options(opt.Own)
	if err != nil {
		return nil, err
	}
	order := Order(own.Order)
	if order == 0 {
		order = Third
	}
	j := opt.Hidden
	if j == 0 {
		j = 8
	}
	a := own.Actions
	if a == 0 {
		a = len(alphabet)
	}
	m, err := New(Shape{Order: order, L: len(alphabet), J: j, A: a}, alphabet)
	if err != nil {
		return nil, err
	}
	for i := range m.Params {
		m.Params[i] = Init * (2*rng.Float64() - 1)
	}
	n := NewNet(m)
	n.NoReadGrad, n.TwoSided = own.NoReadGrad, own.TwoSided
	n.SoftStack, n.SoftStraight = own.SoftStack, own.SoftStraight
	return n, nil
}

// Classifier returns the fast evaluation-mode Runner of the net's current
// weights, with refine iterations per symbol (at least 1).
func (n *Net) Classifier(refine int) nn.Classifier {
	run := n.Model.NewRunner()
	run.Refine = max(1, refine)
	return run
}

// Encode records evalRefine (at least 1) as the model's evaluation
// refinement and writes the model file (Model.Encode).
func (n *Net) Encode(w io.Writer, evalRefine int) error {
	n.EvalRefine = max(1, evalRefine)
	return n.Model.Encode(w)
}

// Weighted is the optional interface of a model that computes with NSPDA
// weights: the tools that read an NSPDA's states and stack (classify
// --trace, extract) and programs written into it (program.Programmable)
// ask a loaded nn.Model for it, never for its concrete type.
type Weighted interface {
	Weights() *Model
}

// Weights is the model the net computes with (Weighted; a program is
// written into it).
func (n *Net) Weights() *Model { return n.Model }

// Discretized is a net over a copy of its weights made ternary
// (Model.Discretize, the paper's discretization before evaluation).
func (n *Net) Discretized() nn.Model { return NewNet(n.Model.Discretize()) }

var (
	_ nn.ClassifierMaker = (*Net)(nil)
	_ nn.Encoder         = (*Net)(nil)
	_ nn.Discretizer     = (*Net)(nil)
	_ Weighted           = (*Net)(nil)
)
