// Package program compiles a deterministic PDA into NSPDA weights by
// orthogonal state encoding (paper Sec. 4; Omlin and Giles 1996): one state
// neuron per PDA state, transitions written as large positive and negative
// weights. The result is a Program, a list of weight settings that can be
// printed, filtered (to insert only some rules, as hints) and applied to a
// network of the program's size or larger.
//
// Two facts shape the construction (docs/design.md, "Rule insertion"):
//
//   - The state activation is a hard threshold at 0, so the state weights'
//     scale H does not change what a programmed network computes: any H > 0
//     gives the same binary trajectory. H matters only to training, where
//     it sets how saturated the sigmoid's straight-through gradient is.
//   - The action activation has absolute thresholds (≈ +0.26 and −0.18), and
//     read neurons that are not on top still carry small values (up to 0.11),
//     so the action strength is bounded on both sides.
//
// Third order programs one weight per (target, state, top, input). Second
// order cannot express the conjunction of top and input in one weight; it
// splits each PDA state into one neuron per input symbol that can enter it
// (the paper's "separate sets of states for each symbol"), so that a neuron
// fires only when both its top-of-stack weight and its input weight are on,
// and it uses small action "gadgets" whose off-values stay in the no-op band.
package program

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
)

// Kind says what part of the PDA a setting encodes; hints keep some kinds.
type Kind int

// The kinds of settings.
const (
	StateRule  Kind = iota // a transition's next state
	ActionRule             // a transition's stack operation
	AcceptRule             // acceptance at the end marker, and the output
	BiasRule               // a state neuron's threshold
)

var kindNames = [...]string{"state", "action", "accept", "bias"}

func (k Kind) String() string { return kindNames[k] }

// Set is one weight setting. I is the output neuron (state or action), J the
// state neuron it comes from; for third order K is the read neuron and L the
// input neuron; for second order K indexes [r; x] and L is -1. Biases and
// output weights use I only.
type Set struct {
	Kind     Kind
	Tensor   nspda.Tensor
	I, J     int
	K, L     int
	Value    float64
	IntoDead bool   // the rule leads into the dead state
	Rule     string // the PDA rule it encodes, rendered for String
	// From is the one PDA transition a setting encodes, when it encodes
	// exactly one (every StateRule, and third-order ActionRules); nil
	// otherwise. Hints select settings by it.
	From *Where
}

// Where says where a PDA transition δ(State, Symbol, Top) applies, as
// indices into the PDA compiled (completed with the dead state under
// Options.Dead, which keeps the indices of the original states): Top is a
// symbol index, or L for the empty stack ⊥.
type Where struct{ State, Symbol, Top int }

// Program is a compiled PDA: the network size it needs, the meaning of each
// state neuron, and the weight settings.
type Program struct {
	Name     string
	Shape    nspda.Shape
	Alphabet []rune
	Neurons  []string
	Sets     []Set
	Options  Options
}

// Options control compilation. Zero values select the defaults.
type Options struct {
	Order nspda.Order // 2 or 3 (default 3)
	// H is the state-weight strength (default 6): +H and −H weights, biases
	// −H/2 (third order) or −1.5H (second order), output ±H.
	H float64
	// HA is the third-order action strength (default 1, or the middle of
	// FeasibleHA's interval when 1 lies outside it); it must lie inside it.
	HA float64
	// Dead adds an explicit dead (reject) state neuron that every missing
	// transition leads to. Without it, a missing transition turns every
	// state neuron off, which is absorbing and rejects.
	Dead bool
}

func (o Options) withDefaults() Options {
	if o.Order == 0 {
		o.Order = nspda.Third
	}
	if o.H == 0 {
		o.H = 6
	}
	return o
}

// Compile compiles p into a program.
func Compile(p *grammar.PDA, opt Options) (*Program, error) {
	opt = opt.withDefaults()
	if opt.H <= 0 {
		return nil, fmt.Errorf("state strength H must be positive, not %g", opt.H)
	}
	lo, hi := FeasibleHA(p.L())
	if lo >= hi {
		return nil, fmt.Errorf("an alphabet of %d symbols is too large to program: read noise reaches the action thresholds", p.L())
	}
	if opt.HA == 0 {
		opt.HA = 1
		if opt.HA <= lo || opt.HA >= hi {
			opt.HA = (lo + hi) / 2
		}
	}
	if opt.Order == nspda.Third && (opt.HA <= lo || opt.HA >= hi) {
		return nil, fmt.Errorf("action strength %g is outside the working interval (%.3f, %.3f) for %d symbols", opt.HA, lo, hi, p.L())
	}
	if opt.Order != nspda.Second && opt.Order != nspda.Third {
		return nil, fmt.Errorf("order must be 2 or 3, not %d", opt.Order)
	}
	// The shape is checked before the settings (a setting per parameter,
	// each ten times a parameter's size) and the completion are made.
	want, err := plan(p, opt)
	if err != nil {
		return nil, tooLarge(p, want, err)
	}
	dead := -1
	if opt.Dead {
		if p, err = complete(p); err != nil {
			return nil, err
		}
		dead = p.M() - 1
	}
	c := compiler{p: p, opt: opt, dead: dead, prog: &Program{Name: p.Name, Alphabet: p.Alphabet, Options: opt}}
	if opt.Order == nspda.Third {
		c.third()
	} else {
		c.second()
	}
	prog := c.prog
	prog.Shape = nspda.Shape{Order: opt.Order, L: p.L(), J: len(prog.Neurons), A: c.actions}
	if prog.Shape != want {
		// plan must count what the compiler makes: Model relies on a valid shape.
		return nil, fmt.Errorf("internal error: %s compiled to %+v, planned %+v", p.Name, prog.Shape, want)
	}
	return prog, nil
}

// compiler holds the state of one compilation.
type compiler struct {
	p       *grammar.PDA
	opt     Options
	prog    *Program
	actions int // action neurons used
	dead    int // the dead state added by Options.Dead, or -1
}

func (c *compiler) set(s Set) { c.prog.Sets = append(c.prog.Sets, s) }

// acceptTops lists the tops (symbol indices, L for the empty stack) with
// which state q accepts at the end marker (PDA.AcceptsAt): every top for an
// accepting state, only the empty stack under accept_empty_stack, and the
// tops of accept_with_top. The accept neuron fires on $ from q exactly with
// one of them on top.
func acceptTops(p *grammar.PDA, q int) []int {
	var out []int
	for k := 0; k <= p.L(); k++ {
		if p.AcceptsAt(q, k) {
			out = append(out, k)
		}
	}
	return out
}

// rule renders a transition as `q0 -a,⊥-> q1 push`.
func rule(p *grammar.PDA, q, l, k int, t grammar.Transition) string {
	return fmt.Sprintf("%s -%s,%s-> %s %s", p.States[q], symName(p, l), readName(p, k), p.States[t.To], t.Op)
}

func symName(p *grammar.PDA, l int) string {
	if l == p.L() {
		return string(grammar.EndMarker)
	}
	return string(p.Alphabet[l])
}

func readName(p *grammar.PDA, k int) string {
	if k == p.L() {
		return "⊥"
	}
	return string(p.Alphabet[k])
}

// Select returns a copy of the program keeping only the settings keep
// accepts.
func (prog *Program) Select(keep func(Set) bool) *Program {
	out := *prog
	out.Sets = nil
	for _, s := range prog.Sets {
		if keep(s) {
			out.Sets = append(out.Sets, s)
		}
	}
	return &out
}

// Model returns a new network of the program's shape with every parameter
// zero except those the program sets.
func (prog *Program) Model() *nspda.Model {
	m, err := nspda.New(prog.Shape, prog.Alphabet)
	if err != nil {
		panic(err) // Compile only builds valid shapes
	}
	if err := prog.Apply(m); err != nil {
		panic(err)
	}
	return m
}

// Programmable is a trainable model a program can be written into (as
// hints): one that computes with NSPDA weights (nspda.Net).
type Programmable = nspda.Weighted

// Apply writes the program's settings into m, which must have the same order
// and alphabet and at least as many state and action neurons. Neurons the
// program names get their names; all other parameters are left alone.
func (prog *Program) Apply(m *nspda.Model) error {
	s := prog.Shape
	if m.Order != s.Order || string(m.Alphabet) != string(prog.Alphabet) {
		return fmt.Errorf("program is for order %d over %q, model is order %d over %q", s.Order, string(prog.Alphabet), m.Order, string(m.Alphabet))
	}
	if m.J < s.J || m.A < s.A {
		return fmt.Errorf("program needs J >= %d and A >= %d, model has J = %d, A = %d", s.J, s.A, m.J, m.A)
	}
	for _, st := range prog.Sets {
		*m.Param(st.Tensor, st.I, st.J, st.K, st.L) = st.Value
	}
	if len(m.Neurons) < m.J {
		m.Neurons = append(m.Neurons, make([]string, m.J-len(m.Neurons))...)
	}
	copy(m.Neurons, prog.Neurons)
	return nil
}

// String renders the program: a header, the neurons, then one line per
// setting in the order they were made.
func (prog *Program) String() string {
	var b strings.Builder
	s := prog.Shape
	fmt.Fprintf(&b, "program %s: order %d, L=%d, J=%d, A=%d, H=%.4g, HA=%.4g, dead neuron: %v\n",
		prog.Name, s.Order, s.L, s.J, s.A, prog.Options.H, prog.Options.HA, prog.Options.Dead)
	b.WriteString("neurons:")
	for i, n := range prog.Neurons {
		fmt.Fprintf(&b, " %d=%s", i, n)
	}
	b.WriteByte('\n')
	for _, st := range prog.Sets {
		fmt.Fprintf(&b, "%-6s %-34s = %+g", st.Kind, prog.target(st), st.Value)
		if st.Rule != "" {
			fmt.Fprintf(&b, "   # %s", st.Rule)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// target renders the weight a setting writes, e.g. Ws[q1 <- q0 | ⊥, a].
func (prog *Program) target(st Set) string {
	n := func(i int) string { return prog.Neurons[i] }
	read := func(k int) string {
		if k == len(prog.Alphabet) {
			return "⊥"
		}
		return string(prog.Alphabet[k])
	}
	in := func(l int) string {
		if l == len(prog.Alphabet) {
			return "$"
		}
		return string(prog.Alphabet[l])
	}
	to := n
	if st.Tensor == nspda.TWa || st.Tensor == nspda.TBa {
		to = func(i int) string { return fmt.Sprintf("a%d", i) }
	}
	switch st.Tensor {
	case nspda.TBs, nspda.TWo:
		return fmt.Sprintf("%s[%s]", st.Tensor, n(st.I))
	case nspda.TBa:
		return fmt.Sprintf("%s[%s]", st.Tensor, to(st.I))
	case nspda.TBo:
		return "bo"
	}
	if prog.Shape.Order == nspda.Third {
		return fmt.Sprintf("%s[%s <- %s | %s, %s]", st.Tensor, to(st.I), n(st.J), read(st.K), in(st.L))
	}
	R := prog.Shape.R()
	if st.K < R {
		return fmt.Sprintf("%s[%s <- %s | read %s]", st.Tensor, to(st.I), n(st.J), read(st.K))
	}
	return fmt.Sprintf("%s[%s <- %s | in %s]", st.Tensor, to(st.I), n(st.J), in(st.K-R))
}

// sortedKeys returns a map's int keys in increasing order.
func sortedKeys[V any](m map[int]V) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}
