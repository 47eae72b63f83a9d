// Package extract reads the pushdown automaton a trained or programmed NSPDA
// implements (docs/design.md section 9), minimizes it, writes it as a spec
// file, compares it with the network and with a target language, and draws
// it.
//
// In evaluation mode the network is a deterministic machine over a digital
// stack: its state neurons are binary, its read neurons show only the top of
// the stack and the symbol the last action popped, and its input is one-hot.
// A symbol l read in state vector z, with top k and last-popped symbol p,
// gives the next vector z' = F^K(z, r(k, p), l) (K the refinement), the
// stack operation op = D(z, r(k, p), l), and the next last-popped symbol
// p' = k after a pop of a non-empty stack, none otherwise. So the pair
// (z, p) is a finite control over the stack of exactly the class of PDAs
// package grammar reads, and extraction is exact, not approximate: the
// explored automaton accepts the network's language. The verdict at the end
// marker is a function of (z, p) and the top, which a spec file says with
// accept_with_top when it must. What can fail is size (the vector takes too
// many values within reach: no finite control of that size), which is
// reported, never hidden.
package extract

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
)

// State is one extracted control state: the state neurons on after a symbol
// and the symbol that symbol's action popped (-1 for none).
type State struct {
	Active []int
	Popped int
}

// key identifies a State in a map: its popped symbol and active neurons
// as varints (two bytes a neuron up to 16384 neurons).
func (s State) key() string {
	b := make([]byte, 0, 2+2*len(s.Active))
	b = binary.AppendVarint(b, int64(s.Popped))
	for _, j := range s.Active {
		b = binary.AppendUvarint(b, uint64(j))
	}
	return string(b)
}

// move is a transition of the explored automaton.
type move struct {
	to int32
	op grammar.Op
}

// summariesPerState bounds the pop summaries allowed per state bound: a
// network whose states pop into almost any other state costs O(states²)
// summaries, and is better refused than waited for.
const summariesPerState = 16

// DefaultMaxMoves bounds the transitions exploration evaluates (L for each
// reached (state, top) pair), the pop summaries and the inclusions between
// them: each costs a network step or a few words of memory, so exploration
// runs in O(DefaultMaxMoves) memory (about 100 bytes each at most) whatever
// the alphabet and the state bound.
const DefaultMaxMoves = 1 << 22

// pair is a (state, top) configuration exploration reached: its top (L for
// the empty stack) and its row of transitions and verdict.
type pair struct {
	k, row int32
}

// explorer finds the configurations (state, top) a network reaches from its
// start and the network's transitions from them, by pushdown saturation:
// only pairs that some input string reaches are evaluated.
//
// Pop[a][X] is the set of states the network can be in right after it pops
// X, having started at a with X on top. Then (q, k) reached and a push of l
// into a reach (a, l), and every d in Pop[a][l] reaches (d, k) again; Pop
// summaries grow through noops and completed push/pop pairs above X.
//
// Memory is proportional to what is reached: a state costs its active
// neurons and its reached tops, a reached pair its row of L transitions.
// Witness strings, which only tests read, are kept only with witnesses set.
type explorer struct {
	run        *nspda.Runner
	alphabet   []rune
	L, maxQ    int
	maxMoves   int
	states     []State
	index      map[string]int
	tops       [][]pair           // [q]: the tops q is reached with, increasing
	rowOf      map[[2]int32]int32 // (q, k) -> its row
	rows       []move             // [row*L+l], to = -1 until computed
	acc        []int8             // [row]: -1 not computed, 0 reject, 1 accept
	witnesses  bool               // keep the witness strings (tests)
	witness    map[[2]int][]int   // (q, k) -> a string reaching it
	work       [][2]int
	pops       map[[2]int]*set       // (a, X) -> states after the pop
	callers    map[[2]int][][3]int32 // (a, l) -> (q, k, l) that pushed l into a
	inherit    map[[2]int]*set       // (d, X) -> states a with Pop[a][X] ⊇ Pop[d][X]
	via        map[[3]int][]int      // (a, d, X) of inherit -> the string from a to d
	popW       map[[3]int][]int      // (a, X, d) of Pop -> a string from (a, X) to d
	popWork    []popItem             // pops to add
	pairs      int                   // reached (q, k) pairs
	summaries  int                   // entries of Pop
	inclusions int                   // entries of inherit
	truncated  bool
	stack      [1]int
}

// set is a set of states that iterates in insertion order, so that
// exploration is deterministic.
type set struct {
	list []int
	has  map[int]bool
}

// add adds q and reports whether it was new.
func (s *set) add(q int) bool {
	if s.has[q] {
		return false
	}
	s.has[q] = true
	s.list = append(s.list, q)
	return true
}

// get returns m's set at c, creating it.
func get(m map[[2]int]*set, c [2]int) *set {
	s := m[c]
	if s == nil {
		s = &set{has: map[int]bool{}}
		m[c] = s
	}
	return s
}

// members lists m's set at c (nil for none).
func members(m map[[2]int]*set, c [2]int) []int {
	if s := m[c]; s != nil {
		return s.list
	}
	return nil
}

func newExplorer(m *nspda.Model, refine, maxStates int) *explorer {
	run := m.NewRunner()
	run.Refine = refine
	return &explorer{
		run: run, alphabet: m.Alphabet, L: m.L, maxQ: maxStates, maxMoves: DefaultMaxMoves,
		index:   map[string]int{},
		rowOf:   map[[2]int32]int32{},
		pops:    map[[2]int]*set{},
		callers: map[[2]int][][3]int32{},
		inherit: map[[2]int]*set{},
		witness: map[[2]int][]int{},
		via:     map[[3]int][]int{},
		popW:    map[[3]int][]int{},
	}
}

// state returns the index of s, adding it; -1 when the bound is reached.
func (e *explorer) state(s State) int {
	k := s.key()
	if q, ok := e.index[k]; ok {
		return q
	}
	if len(e.states) >= e.maxQ {
		e.truncated = true
		return -1
	}
	q := len(e.states)
	e.index[k] = q
	e.states = append(e.states, s)
	e.tops = append(e.tops, nil)
	return q
}

// row returns the row of the reached pair (q, k).
func (e *explorer) row(q, k int) (int, bool) {
	r, ok := e.rowOf[[2]int32{int32(q), int32(k)}]
	return int(r), ok
}

// reached reports whether exploration reached (q, k).
func (e *explorer) reached(q, k int) bool {
	_, ok := e.row(q, k)
	return ok
}

// newRow gives the newly reached pair (q, k) its row; false when the
// transitions would number more than maxMoves.
func (e *explorer) newRow(q, k int) bool {
	r := len(e.acc)
	if (r+1)*e.L > e.maxMoves {
		e.truncated = true
		return false
	}
	e.rowOf[[2]int32{int32(q), int32(k)}] = int32(r)
	e.acc = append(e.acc, -1)
	for range e.L {
		e.rows = append(e.rows, move{to: -1})
	}
	ts := e.tops[q]
	i, _ := slices.BinarySearchFunc(ts, int32(k), func(p pair, k int32) int { return cmp.Compare(p.k, k) })
	e.tops[q] = slices.Insert(ts, i, pair{int32(k), int32(r)})
	return true
}

// set puts the runner in state q with top k (k = L: empty stack).
func (e *explorer) set(q, k int) {
	syms := e.stack[:0]
	if k < e.L {
		syms = e.stack[:1]
		syms[0] = k
	}
	s := e.states[q]
	e.run.SetConfig(s.Active, syms, s.Popped)
}

// step returns the network's transition from (q, k), of row r, on l; to is
// -1 when the state bound is reached. A pop of the empty stack is a no-op.
func (e *explorer) step(q, l, k, r int) move {
	mv := &e.rows[r*e.L+l]
	if mv.to >= 0 {
		return *mv
	}
	e.set(q, k)
	op := e.run.Step(l)
	if op == grammar.Pop && k == e.L {
		op = grammar.Noop
	}
	to := e.state(State{Active: slices.Clone(e.run.Active()), Popped: e.run.Stack.Popped()})
	if to < 0 {
		return move{to: -1}
	}
	*mv = move{to: int32(to), op: op}
	return *mv
}

// accepts reports the network's verdict at the end marker in (q, k), of
// row r.
func (e *explorer) accepts(q, k, r int) bool {
	if a := e.acc[r]; a >= 0 {
		return a == 1
	}
	e.set(q, k)
	e.run.Step(e.L)
	ok := e.run.Prediction() > 0.5
	e.acc[r] = 0
	if ok {
		e.acc[r] = 1
	}
	return ok
}

// maxWitness bounds a witness string's length: chains of summaries can
// double it at every link.
const maxWitness = 2048

// tooLong stands for a witness longer than maxWitness.
var tooLong = []int{-1}

// cat concatenates strings of symbols into a new slice, or returns tooLong;
// nil unless witnesses are kept.
func (e *explorer) cat(parts ...[]int) []int {
	if !e.witnesses {
		return nil
	}
	n := 0
	for _, p := range parts {
		if len(p) > 0 && p[0] < 0 {
			return tooLong
		}
		n += len(p)
	}
	if n > maxWitness {
		return tooLong
	}
	out := make([]int, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// popItem is a pop summary to add: d ∈ Pop[a][X], reached by string w.
type popItem struct {
	a, X, d int
	w       []int
}

func (e *explorer) addReach(q, k int, w []int) {
	if e.reached(q, k) || !e.newRow(q, k) {
		return
	}
	if e.witnesses {
		e.witness[[2]int{q, k}] = w
	}
	e.pairs++
	e.work = append(e.work, [2]int{q, k})
}

// run explores from the start (neuron 0 on, nothing popped, empty stack)
// until nothing new is reached or the state bound is met.
func (e *explorer) explore() {
	start := e.state(State{Active: []int{0}, Popped: -1})
	e.addReach(start, e.L, nil)
	for (len(e.work) > 0 || len(e.popWork) > 0) && !e.truncated {
		if n := len(e.popWork); n > 0 {
			w := e.popWork[n-1]
			e.popWork = e.popWork[:n-1]
			e.addPop(w.a, w.X, w.d, w.w)
			continue
		}
		w := e.work[0]
		e.work = e.work[1:]
		e.visit(w[0], w[1])
	}
}

// visit evaluates every input from the reached pair (q, k).
func (e *explorer) visit(q, k int) {
	r, _ := e.row(q, k)
	e.accepts(q, k, r)
	w := e.witness[[2]int{q, k}]
	for l := 0; l < e.L; l++ {
		mv := e.step(q, l, k, r)
		if mv.to < 0 {
			return
		}
		to := int(mv.to)
		switch {
		case mv.op == grammar.Push:
			c := [2]int{to, l}
			e.addReach(to, l, e.cat(w, []int{l}))
			e.callers[c] = append(e.callers[c], [3]int32{int32(q), int32(k), int32(l)})
			for _, d := range members(e.pops, c) {
				e.returned(q, k, l, to, d)
			}
		case mv.op == grammar.Pop: // k < L: a pop of the empty stack is a noop
			e.popWork = append(e.popWork, popItem{q, k, to, []int{l}})
		default:
			e.addReach(to, k, e.cat(w, []int{l}))
			if k < e.L {
				e.inherits(q, to, k, []int{l})
			}
		}
	}
}

// returned records that symbol l, pushed from (q, k) into state c, is
// popped in state d, which has k on top again.
func (e *explorer) returned(q, k, l, c, d int) {
	u := e.cat([]int{l}, e.popW[[3]int{c, l, d}])
	e.addReach(d, k, e.cat(e.witness[[2]int{q, k}], u))
	if k < e.L {
		e.inherits(q, d, k, u)
	}
}

// inherits records Pop[a][X] ⊇ Pop[d][X], string u leading from (a, X)
// to (d, X) without popping X.
func (e *explorer) inherits(a, d, X int, u []int) {
	c := [2]int{d, X}
	if !get(e.inherit, c).add(a) {
		return
	}
	if e.inclusions++; e.inclusions > e.maxMoves {
		e.truncated = true
		return
	}
	if e.witnesses {
		e.via[[3]int{a, d, X}] = u
	}
	for _, s := range members(e.pops, c) {
		e.popWork = append(e.popWork, popItem{a, X, s, e.cat(u, e.popW[[3]int{d, X, s}])})
	}
}

// addPop adds d to Pop[a][X] (string w popping X from (a, X) into d) and
// propagates it to the pushers of X into a and to the states that inherit
// a's summary.
func (e *explorer) addPop(a, X, d int, w []int) {
	c := [2]int{a, X}
	if !get(e.pops, c).add(d) {
		return
	}
	if e.witnesses {
		e.popW[[3]int{a, X, d}] = w
	}
	if e.summaries++; e.summaries > min(e.maxQ*summariesPerState, e.maxMoves) {
		e.truncated = true
		return
	}
	for _, qkl := range e.callers[c] {
		e.returned(int(qkl[0]), int(qkl[1]), int(qkl[2]), a, d)
	}
	for _, b := range members(e.inherit, c) {
		e.popWork = append(e.popWork, popItem{b, X, d, e.cat(e.via[[3]int{b, a, X}], w)})
	}
}
