// Package grammar defines deterministic pushdown automata (PDAs), the paper's
// benchmark languages, exact recognizers for them, and samplers of their strings.
//
// A PDA here is the class the NSPDA and NNPDA papers emulate: deterministic,
// no ε-moves, the stack alphabet equal to the input alphabet, and PUSH always
// pushing the current input symbol. Symbols are single runes; the rune '$' is
// reserved for the networks' end-of-string marker.
package grammar

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nspda/nspda/internal/limits"
)

// Op is a stack operation.
type Op int8

const (
	Noop Op = iota // leave the stack alone
	Push           // push the current input symbol
	Pop            // remove the top symbol (a no-op on an empty stack)
)

// maxTable bounds the transition table New builds: states·L·(L+1) entries.
const maxTable = 1 << 22

// String returns the op's name in spec files: noop, push or pop.
func (o Op) String() string {
	switch o {
	case Noop:
		return "noop"
	case Push:
		return "push"
	case Pop:
		return "pop"
	}
	return fmt.Sprintf("Op(%d)", int8(o))
}

// Top values of a transition other than a symbol index (0..L-1).
const (
	TopEmpty = -1 // the transition applies only to an empty stack
	TopAny   = -2 // the transition applies whatever the top, the empty stack included
)

// EndMarker is the end-of-string symbol appended to every string fed to a
// network. It belongs to no language's alphabet.
const EndMarker = '$'

// Transition is one rule δ(From, Input, Top) = (To, Op). From and To index
// PDA.States, Input indexes PDA.Alphabet, and Top is a symbol index,
// TopEmpty or TopAny.
type Transition struct {
	From, Input, Top, To int
	Op                   Op
	Line                 int // line of the spec file it came from; 0 for built-ins
}

// PDA is a deterministic pushdown automaton. Build one with New (or Parse for a
// spec file) so that it is validated; the zero value is not usable.
//
// At the end of the input, state q accepts with stack top k (a symbol, or
// the empty stack) when
//
//	Accept[q] and (the stack is empty or not EmptyStack), or
//	k is one of AcceptTops[q] (TopAny: whatever the stack).
//
// AcceptTops is how a state accepts with some tops and not others; without
// it, acceptance is the classic one (by accepting state, optionally also
// requiring the empty stack). AcceptsAt answers for one (state, top).
type PDA struct {
	Name       string
	Alphabet   []rune   // input symbols = stack symbols, in a fixed order
	States     []string // state names; index 0 need not be the start
	Start      int
	Accept     []bool // Accept[q] reports whether state q is accepting
	EmptyStack bool   // Accept[q] accepts only if the stack is also empty at the end
	// AcceptTops[q] lists further tops with which state q accepts at the
	// end: symbol indices, TopEmpty or TopAny, none of them already covered
	// by Accept[q] and EmptyStack. It may be nil or shorter than States
	// (the missing states list none).
	AcceptTops  [][]int
	Transitions []Transition

	// delta[(q*L+l)*(L+1)+k] is 1 + the index of the transition that applies in
	// state q on input l with top k (k = L for the empty stack), 0 for none.
	delta []int32
	// accepts[q*(L+1)+k] reports whether q accepts at the end with top k.
	accepts []bool
	index   map[rune]int
}

// L is the number of symbols in the alphabet.
func (p *PDA) L() int { return len(p.Alphabet) }

// M is the number of states.
func (p *PDA) M() int { return len(p.States) }

// Symbol returns the index of rune s in the alphabet, or -1.
func (p *PDA) Symbol(s rune) int {
	if i, ok := p.index[s]; ok {
		return i
	}
	return -1
}

// Lookup returns the transition that applies in state q on input symbol l
// with stack top k (k = L() for the empty stack), and whether there is one.
func (p *PDA) Lookup(q, l, k int) (Transition, bool) {
	t := p.delta[(q*p.L()+l)*(p.L()+1)+k]
	if t == 0 {
		return Transition{}, false
	}
	return p.Transitions[t-1], true
}

// AcceptsAt reports whether state q accepts at the end of the input with
// stack top k (a symbol index, or L() for the empty stack).
func (p *PDA) AcceptsAt(q, k int) bool { return p.accepts[q*(p.L()+1)+k] }

// AcceptsSome reports whether state q accepts with some top.
func (p *PDA) AcceptsSome(q int) bool {
	for k := 0; k <= p.L(); k++ {
		if p.AcceptsAt(q, k) {
			return true
		}
	}
	return false
}

// Tops lists the stack tops (symbol indices, L() for empty) that transition t
// covers.
func (p *PDA) Tops(t Transition) []int {
	switch t.Top {
	case TopAny:
		ks := make([]int, p.L()+1)
		for k := range ks {
			ks[k] = k
		}
		return ks
	case TopEmpty:
		return []int{p.L()}
	}
	return []int{t.Top}
}

// New validates a PDA and builds its transition table. It reports unknown
// indices, a pop on an explicitly empty stack, a reserved or repeated symbol,
// and any nondeterministic pair of transitions (including through TopAny),
// and refuses a PDA with more than 2^22 (states × L × (L+1)) table entries.
// An error about a transition is a *SpecError carrying the transition's Line
// (and, for an overlap, naming the line of the other transition).
func New(p PDA) (*PDA, error) {
	q := &p
	if len(q.Alphabet) == 0 {
		return nil, fmt.Errorf("alphabet is empty")
	}
	if len(q.States) == 0 {
		return nil, fmt.Errorf("no states")
	}
	q.index = make(map[rune]int, len(q.Alphabet))
	for i, s := range q.Alphabet {
		if err := checkSymbol(s); err != nil {
			return nil, err
		}
		if _, dup := q.index[s]; dup {
			return nil, fmt.Errorf("symbol %q appears twice in the alphabet", s)
		}
		q.index[s] = i
	}
	if len(q.Accept) != len(q.States) {
		return nil, fmt.Errorf("accept has %d entries for %d states", len(q.Accept), len(q.States))
	}
	if q.Start < 0 || q.Start >= len(q.States) {
		return nil, fmt.Errorf("start state %d out of range", q.Start)
	}
	L := q.L()
	if L > maxTable || q.M() > maxTable || q.M()*L*(L+1) > maxTable {
		return nil, fmt.Errorf("the PDA is too large: %d states and %d symbols need %d·%d·%d transition-table entries, at most %d",
			q.M(), L, q.M(), L, L+1, maxTable)
	}
	if err := limits.Check("states", q.M(), limits.States); err != nil {
		return nil, fmt.Errorf("the PDA is too large: %v", err)
	}
	if err := limits.Check("alphabet size", L, limits.Alphabet); err != nil {
		return nil, fmt.Errorf("the PDA is too large: %v", err)
	}
	if err := q.acceptance(); err != nil {
		return nil, err
	}
	q.delta = make([]int32, q.M()*L*(L+1))
	for i, t := range q.Transitions {
		if err := q.checkTransition(t); err != nil {
			return nil, err
		}
		for _, k := range q.Tops(t) {
			slot := &q.delta[(t.From*L+t.Input)*(L+1)+k]
			if *slot != 0 {
				return nil, q.overlapError(t, q.Transitions[*slot-1])
			}
			*slot = int32(i + 1)
		}
	}
	return q, nil
}

// acceptance checks AcceptTops, normalizes it to one entry per state (a
// fresh slice), and builds the acceptance table.
func (p *PDA) acceptance() error {
	if len(p.AcceptTops) > p.M() {
		return fmt.Errorf("accept tops are given for %d states, there are %d", len(p.AcceptTops), p.M())
	}
	tops := make([][]int, p.M())
	copy(tops, p.AcceptTops)
	p.AcceptTops = tops
	L := p.L()
	p.accepts = make([]bool, p.M()*(L+1))
	for q := range p.M() {
		if p.Accept[q] {
			for k := 0; k <= L; k++ {
				p.accepts[q*(L+1)+k] = !p.EmptyStack || k == L
			}
		}
		for i := range tops[q] {
			if msg := p.acceptTopProblem(q, i); msg != "" {
				return errors.New(msg)
			}
		}
		for _, t := range tops[q] {
			for _, k := range p.Tops(Transition{Top: t}) {
				p.accepts[q*(L+1)+k] = true
			}
		}
	}
	return nil
}

// acceptTopProblem says what is wrong with the i-th of AcceptTops[q] (one
// line, naming the state and the top), or returns "".
func (p *PDA) acceptTopProblem(q, i int) string {
	k := p.AcceptTops[q][i]
	if k < TopAny || k >= p.L() {
		return fmt.Sprintf("accept top %d of state %q is out of range", k, p.States[q])
	}
	for _, prev := range p.AcceptTops[q][:i] {
		switch {
		case prev == k:
			return fmt.Sprintf("top %s is listed twice for state %q", p.topName(k), p.States[q])
		case prev == TopAny || k == TopAny:
			return fmt.Sprintf("top %s of state %q overlaps top %s (any covers every top)", p.topName(k), p.States[q], p.topName(prev))
		}
	}
	switch {
	case !p.Accept[q]:
	case !p.EmptyStack:
		return fmt.Sprintf("state %q accepts with every top already (it is in accept and accept_empty_stack is false); list its tops in one place", p.States[q])
	case k == TopEmpty || k == TopAny:
		return fmt.Sprintf("state %q accepts on the empty stack already (it is in accept and accept_empty_stack is true); "+
			"top %s repeats it", p.States[q], p.topName(k))
	}
	return ""
}

func (p *PDA) checkTransition(t Transition) error {
	if t.From < 0 || t.From >= p.M() || t.To < 0 || t.To >= p.M() {
		return lineErrorf(t.Line, "transition state out of range")
	}
	if t.Input < 0 || t.Input >= p.L() {
		return lineErrorf(t.Line, "transition input out of range")
	}
	if t.Top < TopAny || t.Top >= p.L() {
		return lineErrorf(t.Line, "transition top out of range")
	}
	if t.Op == Pop && t.Top == TopEmpty {
		return lineErrorf(t.Line, "transition from %q on %q pops an empty stack (top empty with op pop)",
			p.States[t.From], string(p.Alphabet[t.Input]))
	}
	if t.Op < Noop || t.Op > Pop {
		return lineErrorf(t.Line, "unknown stack operation %d", t.Op)
	}
	return nil
}

// overlapError reports that transition t covers a (state, input, top) that
// prev already covers. The error carries t's line.
func (p *PDA) overlapError(t, prev Transition) error {
	what := fmt.Sprintf("transition from %q on %q with top %s",
		p.States[t.From], string(p.Alphabet[t.Input]), p.topName(t.Top))
	if prev.Top != t.Top {
		return lineErrorf(t.Line, "%s overlaps the one %s (the PDA must be deterministic)", what, p.where(prev))
	}
	if prev.Line > 0 {
		return lineErrorf(t.Line, "%s is given twice (first on line %d)", what, prev.Line)
	}
	return lineErrorf(t.Line, "%s is given twice", what)
}

func (p *PDA) where(t Transition) string {
	if t.Line > 0 {
		return fmt.Sprintf("on line %d", t.Line)
	}
	return fmt.Sprintf("with top %s", p.topName(t.Top))
}

// topName names top k in messages: empty, any, or the symbol Go-quoted.
func (p *PDA) topName(k int) string { return p.top(k, strconv.Quote) }

// top writes top k (a symbol index, TopEmpty or TopAny): empty, any, or
// the symbol quoted by quote.
func (p *PDA) top(k int, quote func(string) string) string {
	switch k {
	case TopAny:
		return "any"
	case TopEmpty:
		return "empty"
	}
	return quote(string(p.Alphabet[k]))
}

// checkSymbol reports whether s may be an alphabet symbol.
func checkSymbol(s rune) error {
	switch {
	case s == EndMarker:
		return fmt.Errorf("symbol %q is reserved for the end-of-string marker", string(s))
	case s <= ' ' || s == 0x7f || s == '"' || s == '\\':
		return fmt.Errorf("symbol %q cannot be used (control, space, quote or backslash)", string(s))
	}
	return nil
}

// Encode maps a string to symbol indices, reporting the first symbol outside
// the alphabet with its 1-based position.
func (p *PDA) Encode(s string) ([]int, error) {
	return p.AppendEncode(make([]int, 0, len(s)), s)
}

// AppendEncode is Encode appending the indices to dst (which it returns
// grown), so that a caller can reuse one buffer.
func (p *PDA) AppendEncode(dst []int, s string) ([]int, error) {
	pos := 0
	for _, r := range s {
		pos++
		i := p.Symbol(r)
		if i < 0 {
			return nil, fmt.Errorf("symbol %q at position %d is not in the alphabet %s", r, pos, p.AlphabetString())
		}
		dst = append(dst, i)
	}
	return dst, nil
}

// AlphabetString renders the alphabet as {a,b,c}.
func (p *PDA) AlphabetString() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, s := range p.Alphabet {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteRune(s)
	}
	b.WriteByte('}')
	return b.String()
}

// Decode maps symbol indices back to a string.
func (p *PDA) Decode(syms []int) string {
	var b strings.Builder
	for _, i := range syms {
		b.WriteRune(p.Alphabet[i])
	}
	return b.String()
}

// Config is a PDA configuration: its state and stack (bottom first). Dead
// reports that a missing transition was met; a dead configuration rejects.
type Config struct {
	State int
	Stack []int
	Dead  bool
}

// Step applies one input symbol to c in place and returns the transition
// taken (ok is false, and c is dead, when there is none).
func (p *PDA) Step(c *Config, l int) (Transition, bool) {
	if c.Dead {
		return Transition{}, false
	}
	k := p.L()
	if n := len(c.Stack); n > 0 {
		k = c.Stack[n-1]
	}
	t, ok := p.Lookup(c.State, l, k)
	if !ok {
		c.Dead = true
		return Transition{}, false
	}
	c.State = t.To
	switch t.Op {
	case Push:
		c.Stack = append(c.Stack, l)
	case Pop:
		if n := len(c.Stack); n > 0 {
			c.Stack = c.Stack[:n-1]
		}
	}
	return t, true
}

// Accepting reports whether c accepts if the input ends here.
func (p *PDA) Accepting(c Config) bool {
	if c.Dead {
		return false
	}
	k := p.L()
	if n := len(c.Stack); n > 0 {
		k = c.Stack[n-1]
	}
	return p.AcceptsAt(c.State, k)
}

// Run reports whether the PDA accepts the symbol sequence. It reuses no
// memory between calls; use Step for allocation-free loops.
func (p *PDA) Run(syms []int) bool {
	c := Config{State: p.Start}
	for _, l := range syms {
		if _, ok := p.Step(&c, l); !ok {
			return false
		}
	}
	return p.Accepting(c)
}

// Accepts reports whether the PDA accepts string s; symbols outside the
// alphabet reject.
func (p *PDA) Accepts(s string) bool {
	syms, err := p.Encode(s)
	return err == nil && p.Run(syms)
}
