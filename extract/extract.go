package extract

import (
	"errors"
	"fmt"
	"slices"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
)

// DefaultMaxStates bounds the control states exploration evaluates, and
// with summariesPerState the pop summaries (320,000): a trained network of
// 1,045 control states needing about 35 summaries each passes it, and a
// network with no finite control is refused at it in about 30 s
// (docs/design.md, "Too many states").
const DefaultMaxStates = 20000

// Options are extraction's settings; the zero value uses the defaults.
type Options struct {
	// Refine is the number of state iterations per symbol (K); 0 means the
	// model's EvalRefine.
	Refine int
	// MaxStates bounds the distinct (state vector, popped) pairs explored;
	// 0 means DefaultMaxStates.
	MaxStates int
	// MaxMoves bounds the transitions evaluated (L per reached pair of
	// control state and top), the pop summaries and their inclusions; 0
	// means DefaultMaxMoves.
	MaxMoves int
	// Name is the extracted PDA's name (default "extracted").
	Name string
}

// ErrTooManyStates reports a network whose state vector takes more values
// within reach than Options.MaxStates: no finite control was read.
var ErrTooManyStates = errors.New("too many states")

// Acceptance is how an extracted PDA accepts, the simplest form its
// network's verdicts at the end marker fit.
type Acceptance int

// The forms of acceptance, simplest first.
const (
	// ByState: every state's verdict is the same whatever top it is
	// reached with (spec: accept).
	ByState Acceptance = iota
	// ByEmptyStack: no state accepts with a symbol on top (spec: accept
	// and accept_empty_stack).
	ByEmptyStack
	// ByTop: a state's verdict depends on the top (spec: accept for the
	// states that accept with every top they are reached with, and
	// accept_with_top for the others).
	ByTop
)

var acceptanceNames = [...]string{"state", "state and empty stack", "state and top"}

func (a Acceptance) String() string { return acceptanceNames[a] }

// Result is what Extract read from a network.
type Result struct {
	Refine     int // state iterations per symbol
	Explored   int // distinct (state vector, popped) pairs reached
	Pairs      int // reached (control state, top) pairs
	Live       int // explored states from which acceptance is reachable
	Acceptance Acceptance
	PDA        *grammar.PDA
	Err        error  // nil, or why there is no PDA (errors.Is ErrTooManyStates)
	Message    string // Err as a sentence a user can act on
	states     []State
	class      []int // explored state -> PDA state, -1 when dead
	index      map[string]int
}

// StateOf returns the PDA state a network is in when the neurons in active
// are on and popped is the symbol its last action popped (-1 for none), and
// false when that control state was not explored or is dead.
func (r *Result) StateOf(active []int, popped int) (int, bool) {
	if r.PDA == nil {
		return 0, false
	}
	q, ok := r.index[State{Active: active, Popped: popped}.key()]
	if !ok || r.class[q] < 0 {
		return 0, false
	}
	return r.class[q], true
}

// States returns the explored control states and, for each, its PDA state
// (-1 when dead or when there is no PDA).
func (r *Result) States() ([]State, []int) { return r.states, r.class }

// Extract explores the network's reachable configurations, reads its
// transitions and accepting states, removes the states from which it can no
// longer accept, minimizes by partition refinement, and returns the PDA.
// A network whose control is too large or whose acceptance cannot be written
// gets a Result with PDA nil and Err set, and its counts filled in.
func Extract(m *nspda.Model, opt Options) *Result {
	refine := opt.Refine
	if refine < 1 {
		refine = max(1, m.EvalRefine)
	}
	maxQ := opt.MaxStates
	if maxQ < 1 {
		maxQ = DefaultMaxStates
	}
	e := newExplorer(m, refine, maxQ)
	if opt.MaxMoves > 0 {
		e.maxMoves = opt.MaxMoves
	}
	e.explore()
	r := &Result{Refine: refine, Explored: len(e.states), Pairs: e.pairs, states: e.states, index: e.index}
	r.class = make([]int, len(e.states))
	for i := range r.class {
		r.class[i] = -1
	}
	if e.truncated {
		r.Err = ErrTooManyStates
		r.Message = fmt.Sprintf("the network's state vector took more than %d values (with the symbol last popped) within reach, "+
			"or its pops lead from almost any state to almost any other (more than %d summaries), "+
			"or its control states and tops need more than %d transitions: "+
			"it does not behave as a finite control of that size (a counter in the state neurons?); no PDA was written (%d states explored)",
			maxQ, min(maxQ*summariesPerState, e.maxMoves), e.maxMoves, len(e.states))
		return r
	}
	mode, verdicts := e.acceptance()
	r.Acceptance = mode
	live := e.live(verdicts)
	for _, ok := range live {
		if ok {
			r.Live++
		}
	}
	class, n := e.minimize(verdicts, live)
	name := opt.Name
	if name == "" {
		name = "extracted"
	}
	p, order, err := e.build(name, class, n, verdicts, mode)
	if err != nil {
		r.Err = ErrTooManyStates
		r.Message = fmt.Sprintf("the minimized automaton cannot be written: %v", err)
		return r
	}
	for q, c := range class {
		if c >= 0 {
			r.class[q] = order[c]
		}
	}
	r.PDA = p
	return r
}

// Verdicts at the end marker, per explored state and top, as minimization
// sees them: unknown where the state is never reached with that top, or
// where the form of acceptance leaves the verdict free.
const (
	unknown int8 = -1
	rejects int8 = 0
	accepts int8 = 1
)

// acceptance decides the simplest form of acceptance the network's verdicts
// fit (by accepting state alone, when every state's verdict is the same
// whatever top it is reached with; by accepting state and empty stack, when
// no state accepts with a symbol on top; else by state and top) and returns
// each state's verdicts per top (index L: the empty stack) in that form:
//
//	ByState:      the state's one verdict at every top (unknown if never reached)
//	ByEmptyStack: the verdict on the empty stack if reached with it; every
//	              symbol top unknown (the form rejects there, as the network does)
//	ByTop:        the verdict at each top the state is reached with
//
// The verdict at the end marker is a function of the control state and the
// top (design.md section 9), so one of the three always fits.
func (e *explorer) acceptance() (Acceptance, [][]int8) {
	anyOK, emptyOK := true, true
	for q := range e.states {
		first := unknown
		for _, p := range e.tops[q] {
			k := int(p.k)
			v := rejects
			if e.accepts(q, k, int(p.row)) {
				v = accepts
			}
			if first == unknown {
				first = v
			} else if v != first {
				anyOK = false
			}
			if v == accepts && k < e.L {
				emptyOK = false
			}
		}
	}
	mode := ByTop
	switch {
	case anyOK:
		mode = ByState
	case emptyOK:
		mode = ByEmptyStack
	}
	verdicts := make([][]int8, len(e.states))
	for q := range e.states {
		v := slices.Repeat([]int8{unknown}, e.L+1)
		for _, p := range e.tops[q] {
			if mode != ByEmptyStack || int(p.k) == e.L {
				v[p.k] = e.acc[p.row]
			}
		}
		if mode == ByState {
			for k := range v {
				if v[k] != unknown {
					v = slices.Repeat([]int8{v[k]}, e.L+1)
					break
				}
			}
		}
		verdicts[q] = v
	}
	return mode, verdicts
}

// live marks the states from which some accepting state is reachable
// through reached transitions (an over-approximation of "can still accept":
// only states that certainly cannot are dropped). A state accepts when it
// accepts with some top.
func (e *explorer) live(verdicts [][]int8) []bool {
	live := make([]bool, len(e.states))
	for q, v := range verdicts {
		live[q] = slices.Contains(v, accepts)
	}
	for changed := true; changed; {
		changed = false
		for q := range e.states {
			if live[q] {
				continue
			}
			e.moves(q, func(_, _ int, mv move) {
				if !live[q] && live[mv.to] {
					live[q], changed = true, true
				}
			})
		}
	}
	return live
}

// moves calls f for every reached (q, k) and input l with its transition.
func (e *explorer) moves(q int, f func(l, k int, mv move)) {
	for _, p := range e.tops[q] {
		for l, mv := range e.rows[int(p.row)*e.L:][:e.L] {
			f(l, int(p.k), mv)
		}
	}
}
