package nnpda

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/nspda/nspda/nn"
)

// Defaults: J = 8 state neurons, push threshold ε = 0.01, and the longest
// string the stack is sized for until Reserve is called (the paper's first
// test set).
const (
	DefaultHidden  = 8
	DefaultEpsilon = 0.01
	DefaultMaxLen  = 60
)

// Config holds a network's settings: with the alphabet and the parameters,
// everything needed to rebuild it.
type Config struct {
	Order   int     `json:"order"`   // 3: third-order controller; 2: second order over [r; x]
	Hidden  int     `json:"hidden"`  // state neurons J
	Epsilon float64 `json:"epsilon"` // push/pop threshold ε of the action neuron
}

// validate reports settings that cannot be built.
func (c Config) validate() error {
	switch {
	case c.Order != 2 && c.Order != 3:
		return fmt.Errorf("order must be 2 or 3, not %d", c.Order)
	case c.Hidden < 1:
		return fmt.Errorf("need at least one state neuron, not %d", c.Hidden)
	case !(c.Epsilon >= 0 && c.Epsilon < 1):
		return fmt.Errorf("epsilon must be in [0,1), not %v", c.Epsilon)
	}
	return nil
}

// Weights are named views into a flat parameter vector, or into a gradient
// laid out like it. With J state neurons, R = L+1 read neurons (the stack
// symbols, then ⊥) and X = L+1 inputs (the symbols, then $):
//
//	third order:   Ws  X × J × J × R    Ws[((l·J + i)·J + j)·R + k]
//	               Wa  X × J × R        Wa[(l·J + j)·R + k]
//	second order:  Ws  J × J × V        Ws[(i·J + j)·V + m], m over v = [r; x], V = R + X
//	               Wa  J × V            Wa[j·V + m]
//	Bs J, Ba 1, Wo J, Bo 1
//
// Third-order tensors are input-major so that a step with one-hot input l
// touches one contiguous block.
type Weights struct {
	Ws, Bs, Wa, Ba, Wo, Bo []float64
}

// Model is an NNPDA. All parameters live in one flat slice (Params); the
// embedded Weights are views into it.
type Model struct {
	Weights
	alphabet []rune
	cfg      Config
	l        int // alphabet size L
	c        int // context length C per state neuron: R (third order) or R+X
	maxLen   int // longest string the stack is sized for (Reserve)
	depth    int // segment slots
	params   []float64

	// The discrete memory of the string being read: the symbol of each live
	// segment, bottom first, and their number.
	sym []int
	n   int
}

var (
	_ nn.Model    = (*Model)(nil)
	_ nn.Reserver = (*Model)(nil)
)

// New returns an NNPDA over alphabet with every parameter drawn from
// U(−1,1) (S1's initialization).
func New(alphabet []rune, cfg Config, rng *rand.Rand) (*Model, error) {
	if rng == nil {
		return nil, errors.New("nnpda: New needs a random source")
	}
	m, err := build(alphabet, cfg, -1)
	if err != nil {
		return nil, err
	}
	for i := range m.params {
		m.params[i] = 2*rng.Float64() - 1
	}
	return m, nil
}

// build returns a network with zero parameters, its stack sized for
// DefaultMaxLen. A loaded model passes the number of parameters its file
// holds (else -1), checked before anything of the config's size is allocated.
func build(alphabet []rune, cfg Config, nparams int) (*Model, error) {
	if err := nn.CheckAlphabet(alphabet); err != nil {
		return nil, fmt.Errorf("nnpda: %v", err)
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("nnpda: %v", err)
	}
	m := &Model{alphabet: slices.Clone(alphabet), cfg: cfg, l: len(alphabet)}
	m.c = m.r()
	if cfg.Order == 2 {
		m.c += m.x()
	}
	if n := m.numParams(); nparams >= 0 && n != nparams {
		return nil, fmt.Errorf("nnpda: model has %d parameters, got %d", n, nparams)
	}
	m.params = make([]float64, m.numParams())
	m.Weights = m.View(m.params)
	m.Reserve(DefaultMaxLen)
	return m, nil
}

func (m *Model) r() int { return m.l + 1 } // read neurons
func (m *Model) x() int { return m.l + 1 } // input neurons

// sizes returns the lengths of Ws, Bs, Wa, Ba, Wo and Bo.
func (m *Model) sizes() [6]int {
	J := m.cfg.Hidden
	blocks := 1
	if m.cfg.Order == 3 {
		blocks = m.x()
	}
	return [6]int{blocks * J * J * m.c, J, blocks * J * m.c, 1, J, 1}
}

func (m *Model) numParams() int {
	sz := m.sizes()
	return nn.Sum(sz[:])
}

// View returns the named views into buf, which must be laid out like Params.
func (m *Model) View(buf []float64) Weights {
	sz := m.sizes()
	var w Weights
	nn.Cut(buf, sz[:], &w.Ws, &w.Bs, &w.Wa, &w.Ba, &w.Wo, &w.Bo)
	return w
}

// block returns the part of w.Ws (a J × J·C matrix) and w.Wa (a J·C vector)
// that input l uses.
func (m *Model) block(w Weights, l int) (ws, wa []float64) {
	if m.cfg.Order == 2 {
		return w.Ws, w.Wa
	}
	J, C := m.cfg.Hidden, m.c
	return w.Ws[l*J*J*C : (l+1)*J*J*C], w.Wa[l*J*C : (l+1)*J*C]
}

// Reserve sizes the stack for strings of at most maxLen symbols: maxLen+2
// segment slots (a symbol pushes at most one segment). It changes StateSize
// and empties the stack; records made before grow on their next use.
func (m *Model) Reserve(maxLen int) {
	m.maxLen = max(maxLen, 0)
	m.depth = m.maxLen + 2
	m.sym = make([]int, m.depth)
	m.n = 0
}

// Reserved is the longest string the stack is sized for: the maxLen of the
// last Reserve (clamped at 0), DefaultMaxLen until then.
func (m *Model) Reserved() int { return m.maxLen }

// Depth is the number of segment slots.
func (m *Model) Depth() int { return m.depth }

// Params is the flat parameter vector.
func (m *Model) Params() []float64 { return m.params }

// StateSize is J + depth: the state neurons, then the segment lengths.
func (m *Model) StateSize() int { return m.cfg.Hidden + m.depth }

// InputSize is the alphabet plus the end marker.
func (m *Model) InputSize() int { return m.x() }

// Kind is "nnpda".
func (m *Model) Kind() string { return "nnpda" }

// Alphabet returns a copy of the input alphabet.
func (m *Model) Alphabet() []rune { return slices.Clone(m.alphabet) }

// Config returns the network's settings (a Config).
func (m *Model) Config() any { return m.cfg }

// Start writes the initial state, z = (1,0,…,0) and every segment length 0,
// and empties the stack. The NNPDA has no training-time randomness; rng is
// ignored.
func (m *Model) Start(s []float64, rng *rand.Rand) {
	clear(s)
	s[0] = 1
	m.n = 0
}

// op is what an iteration did to the stack.
type op int

const (
	opNone op = iota // not the last iteration of a symbol, or the end marker
	opNoop           // |a| ≤ ε
	opPush           // a > ε: segment (l, a) pushed into slot n0
	opPop            // a < −ε: slots above b emptied, slot b shortened (b = −1: stack emptied)
	opDrop           // a > ε but every slot was full: nothing pushed
)

// record holds what the derivatives of one iteration need, and scratch.
type record struct {
	l      int
	z, z2  []float64 // state before and after, J
	u      []float64 // context: r (third order) or [r; e_l] (second order), C
	zu     []float64 // z ⊗ u, J·C
	n      int       // live segments when read
	w      int       // lowest segment inside the read window
	full   bool      // the window is full (ℓ ≥ 1); otherwise it holds all n segments
	syms   []int     // symbols of segments w..n−1
	op     op
	a      float64
	n0, b  int     // live segments before the action; a pop's shortened slot
	margin float64 // distance to the nearest non-smooth point (tests use it)
	// scratch
	dzu, du []float64
}

// NewRecord returns a record for one iteration.
func (m *Model) NewRecord() any {
	r := &record{}
	m.fit(r)
	return r
}

// fit (re)allocates a record's buffers for the current sizes.
func (m *Model) fit(r *record) {
	J, C := m.cfg.Hidden, m.c
	if len(r.z) == J && cap(r.syms) >= m.depth {
		return
	}
	r.z, r.z2 = make([]float64, J), make([]float64, J)
	r.u, r.du = make([]float64, C), make([]float64, C)
	r.zu, r.dzu = make([]float64, J*C), make([]float64, J*C)
	r.syms = make([]int, 0, m.depth)
}

// sigma1 is 2σ(v) − 1, the action neuron's activation.
func sigma1(v float64) float64 { return math.Tanh(v / 2) }

// DeadNeuron is the state neuron the dead-state hint of Das, Giles and Sun
// trains towards 1 where a string becomes illegal: the last one, z_{J−1}.
func (m *Model) DeadNeuron() int { return m.cfg.Hidden - 1 }
