package grammar

import "fmt"

// MaxOracleStates bounds the PDAs an Oracle is built for: its summaries take
// O(M²·L) bits and O(M³·L²/64) work.
const MaxOracleStates = 512

// Oracle answers, for each prefix of a string, what the PDA knows about it:
// whether the prefix can still be completed to a member of the language
// (viable), which symbols may follow it, and which stack operation the PDA
// performs on each symbol. These are the per-step supervision targets of
// docs/design.md section 8.
//
// Viability of a configuration (q, stack) is decided exactly from three
// summaries of the PDA, computed once as least fixpoints:
//
//	E[q]     acceptance is reachable from (q, empty stack);
//	A[q][X]  from q with X on top, acceptance is reachable without popping X;
//	P[q][X]  the states in which X can be popped, starting from q with X on top.
//
// Then (q, X₁…Xₙ), top first, is viable iff A[q][X₁] or some q' ∈ P[q][X₁]
// has (q', X₂…Xₙ) viable; (q, ε) iff E[q]. Because PUSH pushes the input
// and transitions read only the top, the summaries are closed under the
// three operations (see build). An Oracle is safe for concurrent use.
type Oracle struct {
	p     *PDA
	words int      // uint64 words per state set
	e     []uint64 // E as a state set
	a     []bool   // A[q*L+X]
	pop   []uint64 // P[q*L+X] as state sets, words apiece
}

// NewOracle computes the summaries of p.
func NewOracle(p *PDA) (*Oracle, error) {
	if p.M() > MaxOracleStates {
		return nil, fmt.Errorf("%s has %d states; per-step targets are computed for at most %d", p.Name, p.M(), MaxOracleStates)
	}
	M, L := p.M(), p.L()
	o := &Oracle{p: p, words: (M + 63) / 64}
	o.e = make([]uint64, o.words)
	o.a = make([]bool, M*L)
	o.pop = make([]uint64, M*L*o.words)
	o.build()
	return o, nil
}

func (o *Oracle) set(q, x int) []uint64 {
	i := (q*o.p.L() + x) * o.words
	return o.pop[i : i+o.words]
}

func has(s []uint64, q int) bool { return s[q/64]&(1<<(q%64)) != 0 }

// add sets bit q of s and reports whether it was new.
func add(s []uint64, q int) bool {
	if has(s, q) {
		return false
	}
	s[q/64] |= 1 << (q % 64)
	return true
}

// union ORs src into dst and reports whether dst grew.
func union(dst, src []uint64) bool {
	grew := false
	for i, w := range src {
		if dst[i]|w != dst[i] {
			dst[i] |= w
			grew = true
		}
	}
	return grew
}

func meets(a, b []uint64) bool {
	for i, w := range a {
		if w&b[i] != 0 {
			return true
		}
	}
	return false
}

// build iterates the summaries' defining rules to their least fixpoint. From
// (q, X on top), a transition on input c under top X to q' does:
//
//	pop:  X is popped in q'               → q' ∈ P[q][X]
//	noop: X stays on top                  → P[q][X] ⊇ P[q'][X], A[q][X] ⇐ A[q'][X]
//	push: c goes above X; once c is popped in some q'' ∈ P[q'][c], X is on
//	      top again                       → P[q][X] ⊇ P[q''][X], A[q][X] ⇐ A[q''][X],
//	      and acceptance above X          → A[q][X] ⇐ A[q'][c]
//
// plus A[q][X] ⇐ q accepts with X on top (PDA.AcceptsAt). From (q, ε),
// with transitions under the empty top: noop and pop (a no-op on an empty
// stack) give E[q] ⇐ E[q']; push c gives E[q] ⇐ A[q'][c] or E[q”] for some
// q” ∈ P[q'][c]; and E[q] ⇐ q accepts on the empty stack. Acceptance is a
// function of (state, top), so these base cases are exact whatever the
// spec's accept, accept_empty_stack and accept_with_top.
func (o *Oracle) build() {
	p := o.p
	M, L := p.M(), p.L()
	for changed := true; changed; {
		changed = false
		for q := 0; q < M; q++ {
			for x := 0; x < L; x++ {
				changed = o.relaxTop(q, x) || changed
			}
			changed = o.relaxEmpty(q) || changed
		}
	}
}

func (o *Oracle) relaxTop(q, x int) bool {
	p, L := o.p, o.p.L()
	P := o.set(q, x)
	grew := false
	if p.AcceptsAt(q, x) && !o.a[q*L+x] {
		o.a[q*L+x], grew = true, true
	}
	for c := 0; c < L; c++ {
		t, ok := p.Lookup(q, c, x)
		if !ok {
			continue
		}
		switch t.Op {
		case Pop:
			grew = add(P, t.To) || grew
		case Noop:
			grew = union(P, o.set(t.To, x)) || grew
			if o.a[t.To*L+x] && !o.a[q*L+x] {
				o.a[q*L+x], grew = true, true
			}
		case Push:
			if o.a[t.To*L+c] && !o.a[q*L+x] {
				o.a[q*L+x], grew = true, true
			}
			above := o.set(t.To, c)
			for q2 := 0; q2 < p.M(); q2++ {
				if !has(above, q2) {
					continue
				}
				grew = union(P, o.set(q2, x)) || grew
				if o.a[q2*L+x] && !o.a[q*L+x] {
					o.a[q*L+x], grew = true, true
				}
			}
		}
	}
	return grew
}

func (o *Oracle) relaxEmpty(q int) bool {
	p, L := o.p, o.p.L()
	if has(o.e, q) {
		return false
	}
	ok := p.AcceptsAt(q, L)
	for c := 0; c < L && !ok; c++ {
		t, found := p.Lookup(q, c, L)
		if !found {
			continue
		}
		if t.Op == Push {
			ok = o.a[t.To*L+c] || meets(o.set(t.To, c), o.e)
		} else {
			ok = has(o.e, t.To)
		}
	}
	if ok {
		add(o.e, q)
	}
	return ok
}

// level returns the states from which a stack of X above a stack whose
// states are below is viable: A[q][X] or P[q][X] ∩ below ≠ ∅.
func (o *Oracle) level(dst, below []uint64, x int) {
	L := o.p.L()
	for i := range dst {
		dst[i] = 0
	}
	for q := 0; q < o.p.M(); q++ {
		if o.a[q*L+x] || meets(o.set(q, x), below) {
			add(dst, q)
		}
	}
}

// Targets are the per-step answers for one string of n symbols.
type Targets struct {
	// Viable[t] reports whether the prefix of t+1 symbols can still be
	// completed to a member; Viable[n] is membership of the whole string.
	Viable []bool
	// Next[t*(L+1)+c] reports whether symbol c (c = L: the end marker) may
	// follow the prefix of t+1 symbols: whether that prefix followed by c is
	// viable (for the end marker: is a member).
	Next []bool
	// Ops[t] is the stack operation the PDA performs on symbol t, or -1
	// from the symbol on which it has no transition on.
	Ops []Op
}

// Targets runs syms through the PDA and answers for every prefix.
func (o *Oracle) Targets(syms []int) Targets {
	p := o.p
	n, L := len(syms), p.L()
	tg := Targets{Viable: make([]bool, n+1), Next: make([]bool, n*(L+1)), Ops: make([]Op, n)}
	levels := [][]uint64{append([]uint64(nil), o.e...)} // levels[i]: viable states over the bottom i symbols
	c := Config{State: p.Start}
	scratch := make([]uint64, o.words)
	for t, l := range syms {
		tr, ok := p.Step(&c, l)
		if !ok {
			for ; t < n; t++ {
				tg.Ops[t] = -1
			}
			return tg
		}
		tg.Ops[t] = tr.Op
		switch tr.Op {
		case Push:
			lev := make([]uint64, o.words)
			o.level(lev, levels[len(levels)-1], l)
			levels = append(levels, lev)
		case Pop:
			if len(levels) > 1 {
				levels = levels[:len(levels)-1]
			}
		}
		tg.Viable[t] = has(levels[len(levels)-1], c.State)
		next := tg.Next[t*(L+1) : (t+1)*(L+1)]
		next[L] = p.Accepting(c)
		if !tg.Viable[t] {
			continue
		}
		for a := 0; a < L; a++ {
			next[a] = o.viableAfter(c, levels, a, scratch)
		}
	}
	tg.Viable[n] = p.Accepting(c)
	return tg
}

// viableAfter reports whether the configuration c (whose stack levels are
// levels) followed by symbol a is viable.
func (o *Oracle) viableAfter(c Config, levels [][]uint64, a int, scratch []uint64) bool {
	L := o.p.L()
	k := L
	if n := len(c.Stack); n > 0 {
		k = c.Stack[n-1]
	}
	tr, ok := o.p.Lookup(c.State, a, k)
	if !ok {
		return false
	}
	top := levels[len(levels)-1]
	switch tr.Op {
	case Push:
		o.level(scratch, top, a)
		return has(scratch, tr.To)
	case Pop:
		if len(levels) > 1 {
			return has(levels[len(levels)-2], tr.To)
		}
	}
	return has(top, tr.To)
}
