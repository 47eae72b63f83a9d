package nspda

import "github.com/nspda/nspda/stack"

// Read tables: the contractions of eqs. (1) and (2) for a whole string at
// once.
//
// With binary states, a one-hot input and a digital stack, a step's
// pre-activations are
//
//	v_i = b_i + Σ_{j: z_j = 1} c(l, r)_{ij},  c(l, r)_{ij} = rowDot(W[i, j], r, l)
//
// and the read r takes one of finitely many values: the top symbol (or ⊥)
// reads Top, the symbol the last action popped reads Popped, every other
// neuron Other. So c(l, r) depends on the input l and on the pair (top,
// popped) only, and can be computed once per pair and reused at every step
// that meets it. Each entry is computed by the same rowDot, on the same read
// values, as Runner.Step computes it, and the sum over the active state
// neurons adds the entries in the same (increasing j) order to the same
// bias: the pre-activations are bit for bit those of Runner.Step (z_j = 1,
// so Step's z_j·c is c exactly), and so are the states, actions and
// answers. A step then costs |active|·(J + A) additions instead of
// |active|·(J + A)·R multiply-adds.

// readTableBudget is the most float64s the read tables of one Runner hold
// (64 MiB). A model whose tables would need more keeps computing the
// contraction directly (Step) at the pairs beyond the budget.
const readTableBudget = 8 << 20

// readTables holds the contractions c(l, r) of a model's weights for each
// input l and each read r a Runner has met, computed when first met.
type readTables struct {
	m      *Model
	reads  stack.Reads // the read values the tables were computed with
	nr     int         // reads: R tops (⊥ last) × L+1 popped (none first)
	blocks [][]float64 // [l*nr + rd]: J rows of J (state), then J rows of A (action); nil until met
	left   int         // float64s the budget still allows
	r      []float64   // a read vector
}

func newReadTables(m *Model, reads stack.Reads) *readTables {
	nr := m.R() * (m.L + 1)
	return &readTables{m: m, reads: reads, nr: nr, blocks: make([][]float64, m.X()*nr), left: readTableBudget, r: make([]float64, m.R())}
}

// readIndex is the index of the read of a stack whose top symbol is top (−1:
// empty) and whose last action popped popped (−1: none). A popped symbol
// that is also on top reads Top (stack.Mark), as if none was popped.
func (t *readTables) readIndex(top, popped int) int {
	if top < 0 {
		top = t.m.L
	}
	if popped == top {
		popped = -1
	}
	return top*(t.m.L+1) + popped + 1
}

// block returns the contractions at input l and read rd: J rows of J state
// pre-activation terms (row j: state neuron j's c(l, r)_{·j}), then J rows
// of A action terms; nil if they do not fit the budget.
func (t *readTables) block(l, rd int) []float64 {
	if b := t.blocks[l*t.nr+rd]; b != nil {
		return b
	}
	m := t.m
	n := m.J * (m.J + m.A)
	if n > t.left {
		return nil
	}
	t.left -= n
	b := make([]float64, n)
	for k := range t.r {
		t.r[k] = t.reads.Other
	}
	top, popped := rd/(m.L+1), rd%(m.L+1)-1
	stack.Mark(t.r, top, popped, t.reads.Top, t.reads.Popped)
	m.fillBlock(b[:m.J*m.J], m.Ws, m.J, l, t.r)
	m.fillBlock(b[m.J*m.J:], m.Wa, m.A, l, t.r)
	t.blocks[l*t.nr+rd] = b
	return b
}

// fillBlock sets dst[j*nout + i] = rowDot(W[i, j], r, l), in the Runner's
// input order (contract).
func (s Shape) fillBlock(dst, W []float64, nout, l int, r []float64) {
	for j := range s.J {
		base, stride := s.rowBase(j, nout, l)
		row := dst[j*nout : (j+1)*nout]
		for i := range row {
			row[i] = s.rowDot(W, base+i*stride, r, l, inputFirst)
		}
	}
}
