package extract

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nspda/nspda/grammar"
)

// minimize merges the live states that no input can tell apart, by
// partition refinement (Moore's algorithm): states start in blocks by their
// verdicts per top (acceptance), and a block splits while two of its states differ in some
// (input, top) entry, the entries being the operation and the target's block
// (or "dead", or "never reached with this top"). It returns each state's
// block (-1 for a dead state) and the number of blocks.
//
// Entries at tops a state is never reached with are kept distinct from
// every other value, so two states merge only if they are reached with the
// same tops; this keeps the result exact, at the price of sometimes missing
// a merge a don't-care would allow.
func (e *explorer) minimize(verdicts [][]int8, live []bool) ([]int, int) {
	class := make([]int, len(e.states))
	n := 0
	ids := map[string]int{}
	assign := func(sig func(q int) string) {
		ids = map[string]int{}
		next := make([]int, len(class))
		for q := range e.states {
			if !live[q] {
				next[q] = -1
				continue
			}
			s := sig(q)
			id, ok := ids[s]
			if !ok {
				id = len(ids)
				ids[s] = id
			}
			next[q] = id
		}
		copy(class, next)
	}
	assign(func(q int) string { return fmt.Sprint(verdicts[q]) })
	for n != len(ids) {
		n = len(ids)
		prev := append([]int(nil), class...)
		assign(func(q int) string { return e.signature(q, prev) })
	}
	return class, n
}

// signature describes state q's block, accepting bit and entries under the
// partition class.
func (e *explorer) signature(q int, class []int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d|", class[q])
	for _, p := range e.tops[q] {
		fmt.Fprintf(&b, "%d:", p.k)
		for _, mv := range e.rows[int(p.row)*e.L:][:e.L] {
			if c := class[mv.to]; c < 0 {
				b.WriteString("d,")
			} else {
				fmt.Fprintf(&b, "%d%c,", c, "nup"[mv.op])
			}
		}
		b.WriteByte(';')
	}
	return b.String()
}

// entry is one (input, top) cell of a block's transition table: unset at
// a top the block is never reached with (any value will do), else the
// target block (-1: dead, i.e. no transition) and the operation.
type entry struct {
	set bool
	to  int
	op  grammar.Op
}

// maxTableCells bounds the (block, input, top) cells build lays out before
// merging (100 MB): the largest table grammar.New builds (states·L·(L+1)
// entries), which the unmerged blocks must fit in all but rare cases where
// merging would have shrunk them enough.
const maxTableCells = 1 << 22

// build writes the minimized automaton as a PDA, its acceptance in the form
// mode (acceptance). Blocks are numbered in
// breadth-first order from the start's (inputs and tops in alphabet order),
// named q0, q1, …; order maps a block to its PDA state. Transitions into
// dead states are left out (a missing transition rejects); the entries of
// one block and input that agree on every top it is reached with become one
// transition under top "any" (a pop under "any" does nothing on the empty
// stack, as the network's pop there does).
func (e *explorer) build(name string, class []int, n int, verdicts [][]int8, mode Acceptance) (*grammar.PDA, []int, error) {
	L := e.L
	if cells := n * L * (L + 1); cells > maxTableCells {
		return nil, nil, fmt.Errorf("%d states over %d symbols need %d·%d·%d = %d transition-table cells, more than %d",
			n, L, n, L, L+1, cells, maxTableCells)
	}
	table := make([][]entry, n)
	acc := make([][]int8, n)
	for q := range e.states {
		c := class[q]
		if c < 0 {
			continue
		}
		if table[c] == nil {
			table[c] = make([]entry, L*(L+1))
			acc[c] = slices.Repeat([]int8{unknown}, L+1)
		}
		for k, v := range verdicts[q] {
			if v != unknown {
				acc[c][k] = v // the states of a block agree where both are known
			}
		}
		e.moves(q, func(l, k int, mv move) {
			table[c][l*(L+1)+k] = entry{true, class[mv.to], mv.op}
		})
	}
	table, acc, rep := e.fold(table, acc)
	order := make([]int, n)
	for i := range order {
		order[i] = -1
	}
	p := grammar.PDA{Name: name, Alphabet: e.alphabet, EmptyStack: mode == ByEmptyStack}
	var blocks []int // blocks in breadth-first order
	if start := class[0]; start >= 0 {
		start = rep[start]
		order[start] = 0
		blocks = append(blocks, start)
		for i := 0; i < len(blocks); i++ {
			for _, t := range table[blocks[i]] {
				if t.set && t.to >= 0 && order[t.to] < 0 {
					order[t.to] = len(blocks)
					blocks = append(blocks, t.to)
				}
			}
		}
	}
	for o, c := range blocks {
		p.States = append(p.States, fmt.Sprintf("q%d", o))
		accept, tops := acceptanceOf(acc[c], mode, L)
		p.Accept = append(p.Accept, accept)
		p.AcceptTops = append(p.AcceptTops, tops)
	}
	for o, c := range blocks {
		p.Transitions = append(p.Transitions, transitions(table[c], o, order, L)...)
	}
	if len(p.States) == 0 {
		// The network accepts nothing: one rejecting state.
		p.States, p.Accept = []string{"q0"}, []bool{false}
	}
	if len(p.Transitions) == 0 {
		// A spec needs a transition from the start: one into a rejecting
		// state, which changes no verdict.
		p.States = append(p.States, "dead")
		p.Accept = append(p.Accept, false)
		p.Transitions = []grammar.Transition{{From: 0, Input: 0, Top: grammar.TopAny, To: len(p.States) - 1}}
	}
	pda, err := grammar.New(p)
	if err != nil {
		return nil, nil, err // too many states; anything else is a bug here
	}
	for c := range order {
		order[c] = order[rep[c]]
	}
	return pda, order, nil
}

// acceptanceOf writes a block's verdicts per top in the form mode: its
// accepting bit and, under ByTop, the tops of accept_with_top. A block
// that accepts at every top where its verdict is known is accepting; under
// ByTop one that accepts at some known tops and rejects at others lists the
// former (its unknown tops reject).
func acceptanceOf(v []int8, mode Acceptance, L int) (bool, []int) {
	switch mode {
	case ByState:
		return slices.Contains(v, accepts), nil
	case ByEmptyStack:
		return v[L] == accepts, nil
	}
	if !slices.Contains(v, accepts) {
		return false, nil
	}
	if !slices.Contains(v, rejects) {
		return true, nil
	}
	var tops []int
	for k, x := range v {
		switch {
		case x != accepts:
		case k == L:
			tops = append(tops, grammar.TopEmpty)
		default:
			tops = append(tops, k)
		}
	}
	return false, tops
}

// fold merges compatible blocks (blocks.merge) and returns the table and
// verdicts with every target replaced by its representative, and each
// block's representative.
func (e *explorer) fold(table [][]entry, acc [][]int8) ([][]entry, [][]int8, []int) {
	b := &blocks{L: e.L, table: table, acc: acc}
	rep := b.merge()
	for _, row := range b.table {
		for i := range row {
			if row[i].set && row[i].to >= 0 {
				row[i].to = rep[row[i].to]
			}
		}
	}
	return b.table, b.acc, rep
}

// transitions lists block from's transitions (PDA state o): per input, one
// under "any" when the set entries of two or more tops agree (a no-op on
// the empty stack agreeing with a pop elsewhere), else one per top.
func transitions(row []entry, o int, order []int, L int) []grammar.Transition {
	var out []grammar.Transition
	for l := 0; l < L; l++ {
		cells := row[l*(L+1) : (l+1)*(L+1)]
		if t, ok := anyTop(cells, L); ok {
			out = append(out, grammar.Transition{From: o, Input: l, Top: grammar.TopAny, To: order[t.to], Op: t.op})
			continue
		}
		for k, c := range cells {
			if !c.set || c.to < 0 {
				continue
			}
			top := k
			if k == L {
				top = grammar.TopEmpty
			}
			out = append(out, grammar.Transition{From: o, Input: l, Top: top, To: order[c.to], Op: c.op})
		}
	}
	return out
}

// anyTop returns the one entry that stands for every set cell of one input
// (cells[L] is the empty stack's), and whether there is one: two or more
// cells are set, all with the same target, and the same operation except
// that the empty stack's no-op agrees with a pop.
func anyTop(cells []entry, L int) (entry, bool) {
	var sym *entry
	count := 0
	for k := 0; k <= L; k++ {
		if c := &cells[k]; c.set && c.to < 0 {
			return entry{}, false // "any" would cover a missing transition
		}
	}
	for k := 0; k < L; k++ {
		if c := &cells[k]; c.set {
			count++
			if sym == nil {
				sym = c
			} else if c.to != sym.to || c.op != sym.op {
				return entry{}, false
			}
		}
	}
	bottom := cells[L]
	switch {
	case sym == nil:
		return entry{}, false
	case bottom.set:
		count++
		if bottom.to != sym.to || (bottom.op != sym.op && (bottom.op != grammar.Noop || sym.op != grammar.Pop)) {
			return entry{}, false
		}
	}
	return *sym, count > 1
}
