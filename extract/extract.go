package extract

import (
	"errors"
	"fmt"
	"slices"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
)

// DefaultMaxStates bounds the control states exploration evaluates.
const DefaultMaxStates = 2000

// Options are extraction's settings; the zero value uses the defaults.
type Options struct {
	// Refine is the number of state iterations per symbol (K); 0 means the
	// model's EvalRefine.
	Refine int
	// MaxStates bounds the distinct (state vector, popped) pairs explored;
	// 0 means DefaultMaxStates.
	MaxStates int
	// Name is the extracted PDA's name (default "extracted").
	Name string
}

// ErrTooManyStates reports a network whose state vector takes more values
// within reach than Options.MaxStates: no finite control was read.
var ErrTooManyStates = errors.New("too many states")

// ErrAcceptance reports a network whose verdict at the end marker depends
// on the stack's top in a way a spec file cannot say: some state accepts
// with a symbol on top and another only on the empty stack, or one state's
// verdict depends on which symbol is on top.
var ErrAcceptance = errors.New("acceptance not expressible")

// Result is what Extract read from a network.
type Result struct {
	Refine    int // state iterations per symbol
	Explored  int // distinct (state vector, popped) pairs reached
	Pairs     int // reached (control state, top) pairs
	Live      int // explored states from which acceptance is reachable
	PDA       *grammar.PDA
	Err       error  // nil, or why there is no PDA (errors.Is ErrTooManyStates or ErrAcceptance)
	Message   string // Err as a sentence a user can act on
	states    []State
	class     []int // explored state -> PDA state, -1 when dead
	index     map[string]int
	emptyMode bool
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
	e.explore()
	r := &Result{Refine: refine, Explored: len(e.states), Pairs: e.pairs, states: e.states, index: e.index}
	r.class = make([]int, len(e.states))
	for i := range r.class {
		r.class[i] = -1
	}
	if e.truncated {
		r.Err = ErrTooManyStates
		r.Message = fmt.Sprintf("the network's state vector took more than %d values (with the symbol last popped) within reach, "+
			"or its pops lead from almost any state to almost any other (more than %d summaries): "+
			"it does not behave as a finite control of that size (a counter in the state neurons?); no PDA was written (%d states explored)",
			maxQ, maxQ*summariesPerState, len(e.states))
		return r
	}
	accept, emptyMode, err := e.acceptance()
	if err != nil {
		r.Err = ErrAcceptance
		r.Message = err.Error() + "; no PDA was written"
		return r
	}
	r.emptyMode = emptyMode
	live := e.live(accept)
	for _, ok := range live {
		if ok {
			r.Live++
		}
	}
	class, n := e.minimize(accept, live)
	name := opt.Name
	if name == "" {
		name = "extracted"
	}
	p, order, err := e.build(name, class, n, accept, emptyMode)
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

// acceptance decides how the PDA accepts: by accepting state alone, when
// every state's verdict is the same whatever top it is reached with, or by
// accepting state and empty stack, when no state accepts with a symbol on
// top. It returns each state's accepting bit.
func (e *explorer) acceptance() ([]bool, bool, error) {
	anyOK, emptyOK := true, true
	accept := make([]bool, len(e.states))
	var mixed, topped [2]int
	for q := range e.states {
		first := -1
		for k := 0; k <= e.L; k++ {
			if !e.reach[q][k] {
				continue
			}
			a := e.accepts(q, k)
			if v := int(e.acc[q][k]); first < 0 {
				first = v
			} else if v != first && anyOK {
				anyOK, mixed = false, [2]int{q, k}
			}
			if a && k < e.L && emptyOK {
				emptyOK, topped = false, [2]int{q, k}
			}
			accept[q] = accept[q] || a
		}
	}
	switch {
	case anyOK:
		return accept, false, nil
	case emptyOK:
		for q := range accept {
			accept[q] = e.reach[q][e.L] && e.acc[q][e.L] == 1
		}
		return accept, true, nil
	}
	return nil, false, fmt.Errorf("the network's verdict depends on the stack's top in a way a PDA file cannot say: "+
		"its verdict in one state depends on the symbol on top (%s), and it accepts with a symbol on top (%s)",
		e.describe(mixed), e.describe(topped))
}

// describe names a reached pair by a string that reaches it and the
// network's verdict there.
func (e *explorer) describe(qk [2]int) string {
	q, k := qk[0], qk[1]
	top := "the empty stack"
	if k < e.L {
		top = fmt.Sprintf("%q on top", e.alphabet[k])
	}
	verdict := "rejects"
	if e.acc[q][k] == 1 {
		verdict = "accepts"
	}
	w := e.witness[qk]
	if len(w) > 0 && w[0] < 0 {
		return fmt.Sprintf("%s a string of more than %d symbols, with %s", verdict, maxWitness, top)
	}
	s := make([]rune, len(w))
	for i, l := range w {
		s[i] = e.alphabet[l]
	}
	return fmt.Sprintf("%s %q, with %s", verdict, string(s), top)
}

// live marks the states from which some accepting state is reachable
// through reached transitions (an over-approximation of "can still accept":
// only states that certainly cannot are dropped).
func (e *explorer) live(accept []bool) []bool {
	live := slices.Clone(accept)
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
	for k := 0; k <= e.L; k++ {
		if !e.reach[q][k] {
			continue
		}
		for l := 0; l < e.L; l++ {
			f(l, k, e.trans[q][l*(e.L+1)+k])
		}
	}
}
