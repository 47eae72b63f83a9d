package stackrnn

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/nspda/nspda/nn"
)

// Defaults: "Stack RNN 40+10" and "List RNN 40+5" (baselines.md 2.3), the
// read depth k = 2 of the NSPDA paper, and the longest string the memories
// are sized for until Reserve is called (the paper's first test set).
const (
	DefaultHidden = 40
	DefaultStacks = 10
	DefaultLists  = 5
	ReadDepth     = 2
	DefaultMaxLen = 60
)

// Config holds a network's settings: with the alphabet, the memory kind and
// the parameters, everything needed to rebuild it.
type Config struct {
	Hidden    int  `json:"hidden"`    // hidden units m
	Stacks    int  `json:"stacks"`    // memories p (stacks or lists)
	Rounding  bool `json:"rounding"`  // hard argmax actions in evaluation mode
	Recurrent bool `json:"recurrent"` // add R h_{t−1} (the authors' -mod 2)
}

// validate reports settings that cannot be built.
func (c Config) validate() error {
	switch {
	case c.Hidden < 1:
		return fmt.Errorf("need at least one hidden unit, not %d", c.Hidden)
	case c.Stacks < 1:
		return fmt.Errorf("need at least one memory, not %d", c.Stacks)
	}
	return nil
}

// Weights are named views into a flat parameter vector, or into a gradient
// laid out like it. With m hidden units, p memories of n_a actions, k = 2 read
// cells and X = |alphabet|+1 inputs:
//
//	U   X × m           U[l·m + i]: input l to hidden unit i
//	R   m × m           R[i·m + j]: hidden j to hidden i (empty unless Recurrent)
//	P   m × p·k         P[i·pk + q·k + c]: read cell c of memory q to hidden i
//	C   p·(n_a+1) × m   C[(q·(n_a+1) + c)·m + i]: row c < n_a is A_q's row for
//	                    action c, row n_a is the push-value row D_q
//	Wo  m, Bo 1         readout o = Wo·h + Bo
type Weights struct {
	U, R, P, C, Wo, Bo []float64
}

// Model is a stack RNN or list RNN. All parameters live in one flat slice
// (Params); the embedded Weights are views into it.
type Model struct {
	Weights
	mem      Memory
	alphabet []rune
	cfg      Config
	x        int // input neurons: alphabet + end marker
	na       int // actions per memory
	maxLen   int // longest string the memories are sized for (Reserve)
	depth    int // cells per memory
	head     int // the cell read from (and inserted at)
	acts     []action
	params   []float64
	hard     bool // this string is read with rounded actions
}

var (
	_ nn.Model    = (*Model)(nil)
	_ nn.Reserver = (*Model)(nil)
)

// New returns a network with memory mem over alphabet, its weights drawn as
// in the authors' code: each the sum of three U(−0.1,0.1) draws, Bo = 0.
func New(mem Memory, alphabet []rune, cfg Config, rng *rand.Rand) (*Model, error) {
	if rng == nil {
		return nil, errors.New("stackrnn: New needs a random source")
	}
	m, err := build(mem, alphabet, cfg, -1)
	if err != nil {
		return nil, err
	}
	for i := range m.params {
		m.params[i] = 0.2*rng.Float64() - 0.1 + 0.2*rng.Float64() - 0.1 + 0.2*rng.Float64() - 0.1
	}
	m.Bo[0] = 0
	return m, nil
}

// build returns a network with zero parameters, its memories sized for
// DefaultMaxLen. A loaded model passes the number of parameters its file
// holds (else -1), checked before anything of the config's size is allocated.
func build(mem Memory, alphabet []rune, cfg Config, nparams int) (*Model, error) {
	if mem != Stack && mem != List {
		return nil, fmt.Errorf("stackrnn: unknown memory %d", mem)
	}
	if err := nn.CheckAlphabet(alphabet); err != nil {
		return nil, fmt.Errorf("stackrnn: %v", err)
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("stackrnn: %v", err)
	}
	m := &Model{mem: mem, alphabet: slices.Clone(alphabet), cfg: cfg, x: len(alphabet) + 1, na: mem.actions()}
	if n := m.numParams(); nparams >= 0 && n != nparams {
		return nil, fmt.Errorf("stackrnn: %s has %d parameters, got %d", mem.Kind(), n, nparams)
	}
	m.params = make([]float64, m.numParams())
	m.Weights = m.View(m.params)
	m.Reserve(DefaultMaxLen)
	return m, nil
}

// sizes returns the lengths of U, R, P, C, Wo and Bo.
func (m *Model) sizes() [6]int {
	h, p := m.cfg.Hidden, m.cfg.Stacks
	r := 0
	if m.cfg.Recurrent {
		r = h * h
	}
	return [6]int{m.x * h, r, h * p * ReadDepth, p * (m.na + 1) * h, h, 1}
}

func (m *Model) numParams() int {
	sz := m.sizes()
	return nn.Sum(sz[:])
}

// View returns the named views into buf, which must be laid out like Params.
func (m *Model) View(buf []float64) Weights {
	sz := m.sizes()
	var w Weights
	nn.Cut(buf, sz[:], &w.U, &w.R, &w.P, &w.C, &w.Wo, &w.Bo)
	return w
}

// Reserve sizes the memories for strings of at most maxLen symbols: a stack
// gets maxLen+2 cells, a list maxLen+2 on either side of its head. It changes
// StateSize (m + p·depth) and the cost of a step, O(p·depth) for the memories;
// records made before grow on their next use.
func (m *Model) Reserve(maxLen int) {
	m.maxLen = max(maxLen, 0)
	m.depth, m.head = m.mem.cells(m.maxLen)
	if m.mem == List {
		m.acts = listActions(m.depth, m.head)
	} else {
		m.acts = stackActions(m.depth)
	}
}

// Reserved is the longest string the memories are sized for: the maxLen of
// the last Reserve (clamped at 0), DefaultMaxLen until then.
func (m *Model) Reserved() int { return m.maxLen }

// Depth is the number of cells per memory.
func (m *Model) Depth() int { return m.depth }

// Params is the flat parameter vector.
func (m *Model) Params() []float64 { return m.params }

// StateSize is m + p·depth: the hidden units, then each memory's cells.
func (m *Model) StateSize() int { return m.cfg.Hidden + m.cfg.Stacks*m.depth }

// InputSize is the alphabet plus the end marker.
func (m *Model) InputSize() int { return m.x }

// Kind is "stack-rnn" or "list-rnn".
func (m *Model) Kind() string { return m.mem.Kind() }

// Memory is the network's kind of memory.
func (m *Model) Memory() Memory { return m.mem }

// Alphabet returns a copy of the input alphabet.
func (m *Model) Alphabet() []rune { return slices.Clone(m.alphabet) }

// Config returns the network's settings (a Config).
func (m *Model) Config() any { return m.cfg }

// Start writes the initial state: h = 0 and every cell Empty. Rounded
// actions are used for this string if the Model has Rounding and rng is nil.
func (m *Model) Start(s []float64, rng *rand.Rand) {
	h := m.cfg.Hidden
	clear(s[:h])
	for i := h; i < len(s); i++ {
		s[i] = Empty
	}
	m.hard = m.cfg.Rounding && rng == nil
}

// record holds what the derivatives of one iteration need, and scratch.
type record struct {
	l     int
	moved bool // the memories moved at this iteration
	hard  bool // actions were rounded
	hPrev []float64
	rd    []float64 // read cells, p·k
	h     []float64
	a     []float64 // actions, p·n_a
	d     []float64 // push values σ(D_q h), p
	mem   []float64 // the memories before the move, p·depth (if moved)
	// scratch
	dh, gctl, drd []float64
}

// NewRecord returns a record for one iteration.
func (m *Model) NewRecord() any {
	r := &record{}
	m.fit(r)
	return r
}

// fit (re)allocates a record's buffers for the current sizes.
func (m *Model) fit(r *record) {
	h, p := m.cfg.Hidden, m.cfg.Stacks
	if len(r.h) == h && len(r.mem) == p*m.depth {
		return
	}
	r.hPrev, r.h, r.dh = make([]float64, h), make([]float64, h), make([]float64, h)
	r.rd, r.drd = make([]float64, p*ReadDepth), make([]float64, p*ReadDepth)
	r.a, r.d = make([]float64, p*m.na), make([]float64, p)
	r.gctl = make([]float64, p*(m.na+1))
	r.mem = make([]float64, p*m.depth)
}
