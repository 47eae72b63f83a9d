package stackrnn

// Empty is the value of an empty memory cell (the authors' EMPTY_STACK_VALUE).
const Empty = -1.0

// Memory is the kind of external memory a network has.
type Memory int

// The two memories of Joulin and Mikolov.
const (
	Stack Memory = iota // continuous stacks: PUSH, POP, NO-OP
	List                // continuous doubly-linked lists: INSERT, LEFT, RIGHT, NO-OP
)

// String returns "stack" or "list".
func (mem Memory) String() string {
	if mem == List {
		return "list"
	}
	return "stack"
}

// Kind returns the registry name of a network with this memory.
func (mem Memory) Kind() string { return mem.String() + "-rnn" }

// actions is the number of actions of the memory (the softmax's size).
func (mem Memory) actions() int {
	if mem == List {
		return 4
	}
	return 3
}

// cells is the number of cells a memory needs for strings of at most maxLen
// symbols, and head the cell the network reads from (and a list inserts at).
func (mem Memory) cells(maxLen int) (n, head int) {
	side := maxLen + 2
	if mem == List {
		return 2*side + 1, side
	}
	return side, 0
}

// A move is one part of an action: for lo ≤ i < hi, new cell i receives the
// old cell i+k (Empty when i+k lies outside the memory).
type move struct{ lo, hi, k int }

// An action is what one softmax component does to a memory: its moves, plus
// the cell that receives the pushed value σ(D h), or −1 for none. A memory
// update is s2 = Σ_c a_c · action_c(s, d).
type action struct {
	moves []move
	push  int
}

// stackActions are the actions of a stack of n cells, cell 0 on top
// (baselines.md 2.1):
//
//	PUSH:  s2[0] = d,        s2[i] = s[i−1]   (i ≥ 1)
//	POP:   s2[i] = s[i+1],   s2[n−1] = Empty
//	NO-OP: s2[i] = s[i]
//
// in the authors' order (push, pop, no-op).
func stackActions(n int) []action {
	return []action{
		{moves: []move{{1, n, -1}}, push: 0},
		{moves: []move{{0, n, +1}}, push: -1},
		{moves: []move{{0, n, 0}}, push: -1},
	}
}

// listActions are the actions of a list of n cells around cell head
// (baselines.md 2.4):
//
//	INSERT: s2[i] = s[i+1] (i < head),  s2[head] = d,  s2[i] = s[i] (i > head)
//	LEFT:   s2[i] = s[i−1]
//	RIGHT:  s2[i] = s[i+1]
//	NO-OP:  s2[i] = s[i]
//
// with Empty read from outside the buffer.
func listActions(n, head int) []action {
	return []action{
		{moves: []move{{0, head, +1}, {head + 1, n, 0}}, push: head},
		{moves: []move{{0, n, -1}}, push: -1},
		{moves: []move{{0, n, +1}}, push: -1},
		{moves: []move{{0, n, 0}}, push: -1},
	}
}

// span returns the part [lo, hi) of the move's range whose source cell
// i+k lies inside a memory of n cells; the rest reads outside it. The loops
// below run the outside parts and the inside part in ascending i, as one
// loop with a bounds test per cell would (the same sums, bit for bit).
func (mv move) span(n int) (lo, hi int) {
	lo = min(max(mv.lo, -mv.k), mv.hi)
	return lo, max(min(mv.hi, n-mv.k), lo)
}

// apply adds a·src[i+k] into dst[i] over the move's range, reading fill
// outside src.
func (mv move) apply(dst, src []float64, a, fill float64) {
	lo, hi := mv.span(len(src))
	for i := mv.lo; i < lo; i++ {
		dst[i] += a * fill
	}
	if hi > lo {
		in, d := src[lo+mv.k:hi+mv.k], dst[lo:hi]
		for i, v := range in {
			d[i] += a * v
		}
	}
	for i := hi; i < mv.hi; i++ {
		dst[i] += a * fill
	}
}

// applyT is the transpose of apply's linear part: it adds a·w[i] into
// dsrc[i+k] over the range.
func (mv move) applyT(dsrc, w []float64, a float64) {
	lo, hi := mv.span(len(dsrc))
	if hi > lo {
		out, in := dsrc[lo+mv.k:hi+mv.k], w[lo:hi]
		for i, v := range in {
			out[i] += a * v
		}
	}
}

// dot returns Σ_i w[i]·src[i+k] over the range, reading Empty outside src.
func (mv move) dot(w, src []float64) float64 {
	lo, hi := mv.span(len(src))
	s := 0.0
	for i := mv.lo; i < lo; i++ {
		s += w[i] * Empty
	}
	if hi > lo {
		in, ws := src[lo+mv.k:hi+mv.k], w[lo:hi]
		for i, v := range in {
			s += ws[i] * v
		}
	}
	for i := hi; i < mv.hi; i++ {
		s += w[i] * Empty
	}
	return s
}

// update sets one memory's new cells (the memory update of baselines.md 2.1
// and 2.4):
//
//	s2 = Σ_c a_c · action_c(s, d)
func update(acts []action, s2, s, a []float64, d float64) {
	clear(s2)
	for c, act := range acts {
		if a[c] == 0 {
			continue
		}
		for _, mv := range act.moves {
			mv.apply(s2, s, a[c], Empty)
		}
		if act.push >= 0 {
			s2[act.push] += a[c] * d
		}
	}
}

// updateVJP is update's backward pass for one memory: given ds2 it adds
// (∂s2/∂s)ᵀ ds2 into ds and sets ga[c] = ∂⟨ds2, s2⟩/∂a_c and returns
// gd = ∂⟨ds2, s2⟩/∂d:
//
//	ga[c] = ⟨ds2, action_c(s, d)⟩,   ds += Σ_c a_c · action_cᵀ ds2,   gd = Σ_c a_c ds2[push_c]
func updateVJP(acts []action, ds, ga, ds2, s, a []float64, d float64) (gd float64) {
	for c, act := range acts {
		g := 0.0
		for _, mv := range act.moves {
			g += mv.dot(ds2, s)
			mv.applyT(ds, ds2, a[c])
		}
		if act.push >= 0 {
			g += ds2[act.push] * d
			gd += a[c] * ds2[act.push]
		}
		ga[c] = g
	}
	return gd
}

// updateJVP is update's forward derivative for one memory:
//
//	ds2 = Σ_c a_c · action_c(ds, dd) + Σ_c da_c · action_c(s, d)
//
// where action_c(ds, dd) reads 0 outside the memory (Empty is a constant).
func updateJVP(acts []action, ds2, ds, s, a, da []float64, d, dd float64) {
	clear(ds2)
	for c, act := range acts {
		for _, mv := range act.moves {
			if a[c] != 0 {
				mv.apply(ds2, ds, a[c], 0)
			}
			if da[c] != 0 {
				mv.apply(ds2, s, da[c], Empty)
			}
		}
		if act.push >= 0 {
			ds2[act.push] += a[c]*dd + da[c]*d
		}
	}
}
