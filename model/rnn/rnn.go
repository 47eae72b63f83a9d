// Package rnn implements the recurrent baselines the NSPDA paper compares
// against, as nn.Models that train under exactly the NSPDA's protocol:
//
//	elman          simple RNN, tanh units (baselines.md §4)
//	lstm           LSTM with forget gate, no peepholes (§4)
//	lstm-peephole  LSTM with diagonal peepholes (§4, Gers et al.)
//	gru            GRU, reset gate applied before U (§4, Chung et al. 2014)
//	mi-rnn         multiplicative-integration RNN (§3, Wu et al. 2016)
//	mi-lstm        multiplicative-integration LSTM (§3)
//	mi-gru         multiplicative-integration GRU, reset before U_h (§3)
//	second-order   second-order RNN of Giles et al. (§5.1)
//
// # Protocol
//
// Inputs are one-hot over the alphabet plus the end marker $ (X = L+1 input
// neurons, $ last). Every weight matrix that reads the input is stored
// input-major, X×G, so W x_t is the contiguous column W[l] and is looked up,
// never multiplied. Recurrent matrices are row-major G×H.
//
// Every iteration is read out: o = v·h + c (v·z + c for the second-order
// net) and the prediction is σ(o). The originals read out differently (a
// softmax language model, or the second-order net's response neuron z_0 at
// the end of the string only); the per-step sigmoid readout trained with
// BCE is the adaptation baselines.md §1.9(b) and §2.6 propose [INFER].
//
// The recurrent state s holds h (first-order nets), [h; c] (LSTMs) or z
// (second order). Step applies the cell once; iterative refinement is the
// caller presenting the same input several times, and the last flag is
// ignored since these nets keep no discrete memory. Start sets h = c = 0, or
// z = e_0 for the second-order net; it uses no randomness.
//
// # Sizes and initialization
//
// Options.Hidden = 0 selects DefaultHidden (40) units for the first-order
// nets, within the paper's "single layer of ≤ 50 neurons", and
// DefaultStates (16) state neurons for the second-order net (our choice: the
// paper sizes only its M1 NSPDA, J = M + U(12,29)).
//
// Parameters are drawn from the rng given to New, in storage order:
//
//   - first-order weights into a unit (W, U, and peepholes) are uniform in
//     ±1/√(X+H), X+H being the fan-in of the unit's concatenated input
//     [x; h];
//   - the readout v is uniform in ±1/√H;
//   - biases are 0, except the LSTM forget-gate bias, +1 (the common
//     practice of Gers et al. 2000 and Jozefowicz et al. 2015, so that
//     cells remember at the start);
//   - MI gains are α = β₁ = β₂ = 1, the first of the two initializations
//     baselines.md §3 lists: the block starts as the additive one plus the
//     full second-order term Wx ⊙ Uh;
//   - second-order weights are uniform in [−1, 1], as Giles et al. (1992)
//     initialize them (baselines.md §5.1, S4).
package rnn

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nspda/nspda/nn"
)

// Default sizes selected by Options.Hidden = 0.
const (
	DefaultHidden = 40 // hidden units of the first-order nets
	DefaultStates = 16 // state neurons of the second-order net
)

// Config is the JSON-serializable configuration of every model in this
// package: with the alphabet and the parameters it rebuilds the model.
type Config struct {
	Hidden int `json:"hidden"` // hidden units, or state neurons (second order)
}

// Specs lists the package's models for the registry, in the order of the
// package documentation. Only second-order is HigherOrder.
var Specs = []nn.Spec{
	spec("elman", "Elman simple RNN, tanh units",
		layout{cell: cellElman}, func(b base) nn.Model { return &Elman{b} }),
	spec("lstm", "LSTM with forget gate, no peepholes",
		layout{cell: cellLSTM}, func(b base) nn.Model { return &LSTM{b} }),
	spec("lstm-peephole", "LSTM with forget gate and diagonal peepholes (Gers et al.)",
		layout{cell: cellLSTM, Peep: true}, func(b base) nn.Model { return &LSTM{b} }),
	spec("gru", "GRU, reset gate applied before U (Chung et al. 2014)",
		layout{cell: cellGRU}, func(b base) nn.Model { return &GRU{b} }),
	spec("mi-rnn", "Elman RNN with general multiplicative integration (Wu et al. 2016)",
		layout{cell: cellElman, MI: true}, func(b base) nn.Model { return &Elman{b} }),
	spec("mi-lstm", "LSTM with general multiplicative integration (Wu et al. 2016)",
		layout{cell: cellLSTM, MI: true}, func(b base) nn.Model { return &LSTM{b} }),
	spec("mi-gru", "GRU with general multiplicative integration, reset before U_h",
		layout{cell: cellGRU, MI: true}, func(b base) nn.Model { return &GRU{b} }),
	spec("second-order", "second-order RNN of Giles et al., sigmoid state neurons, z_0 = e_0",
		layout{cell: cellSecond}, func(b base) nn.Model { return &SecondOrder{b} }),
}

// spec builds the Spec of a model with the given layout (sizes unset).
func spec(name, desc string, lay layout, build func(base) nn.Model) nn.Spec {
	return nn.Spec{
		Name:        name,
		Description: desc,
		HigherOrder: lay.cell == cellSecond,
		New:         newFunc(name, lay, build),
		Load:        loadFunc(name, lay, build),
	}
}

func newFunc(kind string, lay layout, build func(base) nn.Model) func([]rune, nn.Options, *rand.Rand) (nn.Model, error) {
	return func(alphabet []rune, opt nn.Options, rng *rand.Rand) (nn.Model, error) {
		if rng == nil {
			return nil, fmt.Errorf("%s: New needs a random source for the initial weights", kind)
		}
		h := opt.Hidden
		if h == 0 {
			h = DefaultHidden
			if lay.cell == cellSecond {
				h = DefaultStates
			}
		}
		b, err := newBase(kind, alphabet, lay, h, -1)
		if err != nil {
			return nil, err
		}
		b.init(rng)
		return build(b), nil
	}
}

func loadFunc(kind string, lay layout, build func(base) nn.Model) func([]rune, json.RawMessage, []float64) (nn.Model, error) {
	return func(alphabet []rune, config json.RawMessage, params []float64) (nn.Model, error) {
		var cfg Config
		if err := nn.DecodeConfig(config, &cfg); err != nil {
			return nil, fmt.Errorf("%s: bad config %q: %v", kind, config, err)
		}
		b, err := newBase(kind, alphabet, lay, cfg.Hidden, len(params))
		if err != nil {
			return nil, err
		}
		copy(b.params, params)
		return build(b), nil
	}
}

// cell is the kind of recurrent cell.
type cell int

const (
	cellElman cell = iota
	cellLSTM
	cellGRU
	cellSecond
)

// layout holds a model's sizes and variant flags, which fix its parameter
// layout.
type layout struct {
	cell cell
	X, H int  // input neurons (alphabet + end marker) and hidden units
	MI   bool // general multiplicative integration (§3)
	Peep bool // LSTM peepholes
}

// G is the number of pre-activation units: H (Elman, second order),
// 3H (GRU: update, reset, candidate) or 4H (LSTM: i, f, g, o).
func (y layout) G() int {
	switch y.cell {
	case cellGRU:
		return 3 * y.H
	case cellLSTM:
		return 4 * y.H
	}
	return y.H
}

// views are the named parts of a flat parameter (or gradient) vector.
type views struct {
	W     []float64 // input weights, X×G input-major (second order: X×H×H, W[l][i][j])
	U     []float64 // recurrent weights, G×H row-major (absent in second order)
	B     []float64 // biases, G
	Alpha []float64 // MI gains α, β₁, β₂ (G each; absent unless MI)
	Beta1 []float64
	Beta2 []float64
	P     []float64 // peepholes [p_i; p_f; p_o] (3H; absent unless Peep)
	V     []float64 // readout weights, H
	C     []float64 // readout bias, 1
}

// sizes returns the lengths of the views in storage order.
func (y layout) sizes() [9]int {
	G, H := y.G(), y.H
	var s [9]int
	if y.cell == cellSecond {
		s[0] = y.X * H * H
	} else {
		s[0], s[1] = y.X*G, G*H
	}
	s[2] = G
	if y.MI {
		s[3], s[4], s[5] = G, G, G
	}
	if y.Peep {
		s[6] = 3 * H
	}
	s[7], s[8] = H, 1
	return s
}

// numParams is the length of the flat parameter vector.
func (y layout) numParams() int {
	s := y.sizes()
	return nn.Sum(s[:])
}

// bind cuts p, of length numParams, into views. It does not allocate, so
// the derivatives bind their grad argument with it.
func (y layout) bind(p []float64) views {
	s := y.sizes()
	var v views
	nn.Cut(p, s[:], &v.W, &v.U, &v.B, &v.Alpha, &v.Beta1, &v.Beta2, &v.P, &v.V, &v.C)
	return v
}

// base is what every model shares: identity, sizes and parameters.
type base struct {
	kind     string
	alphabet []rune
	lay      layout
	params   []float64
	p        views
}

// newBase returns a base with zero parameters. A loaded model passes the
// number of parameters its file holds (else -1), checked before anything of
// the hidden size is allocated.
func newBase(kind string, alphabet []rune, lay layout, hidden, nparams int) (base, error) {
	switch {
	case len(alphabet) == 0:
		return base{}, fmt.Errorf("%s: empty alphabet", kind)
	case hidden < 1:
		return base{}, fmt.Errorf("%s: hidden size must be at least 1, not %d", kind, hidden)
	}
	lay.X, lay.H = len(alphabet)+1, hidden
	if n := lay.numParams(); nparams >= 0 && n != nparams {
		return base{}, fmt.Errorf("%s: %d parameters given, hidden size %d over %d inputs needs %d", kind, nparams, hidden, lay.X, n)
	}
	b := base{kind: kind, alphabet: append([]rune(nil), alphabet...), lay: lay}
	b.params = make([]float64, lay.numParams())
	b.p = lay.bind(b.params)
	return b, nil
}

// init draws the initial parameters (see the package documentation).
func (b *base) init(rng *rand.Rand) {
	uniform := func(v []float64, r float64) {
		for i := range v {
			v[i] = r * (2*rng.Float64() - 1)
		}
	}
	y, p := b.lay, b.p
	if y.cell == cellSecond {
		uniform(p.W, 1)
	} else {
		r := 1 / math.Sqrt(float64(y.X+y.H))
		uniform(p.W, r)
		uniform(p.U, r)
		uniform(p.P, r)
	}
	uniform(p.V, 1/math.Sqrt(float64(y.H)))
	if y.cell == cellLSTM {
		for i := y.H; i < 2*y.H; i++ {
			p.B[i] = 1 // forget gate
		}
	}
	for _, v := range [][]float64{p.Alpha, p.Beta1, p.Beta2} {
		for i := range v {
			v[i] = 1
		}
	}
}

// Params is the live, flat parameter vector.
func (b *base) Params() []float64 { return b.params }

// InputSize is the alphabet size plus one for the end marker.
func (b *base) InputSize() int { return b.lay.X }

// Kind is the registry name.
func (b *base) Kind() string { return b.kind }

// Alphabet is the input alphabet without the end marker; callers must not
// modify it.
func (b *base) Alphabet() []rune { return b.alphabet }

// Config returns a Config.
func (b *base) Config() any { return Config{Hidden: b.lay.H} }

// out is the per-step readout o = v·h + c ([INFER] baselines.md §1.9(b)).
func (b *base) out(h []float64) float64 {
	return b.p.C[0] + nn.Dot(b.p.V, h)
}

// outVJP adds do·∂o/∂h into dh and do·∂o/∂(v, c) into grad.
func (b *base) outVJP(h []float64, do float64, dh, grad []float64) {
	g := b.lay.bind(grad)
	nn.ReadoutVJP(do, b.p.V, h, dh, g.V, g.C)
}
