package nspda

import (
	"errors"
	"math/rand/v2"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/stack"
)

// Batch runs the strings of a minibatch through a Net in lock-step, for
// BPTT. Each string keeps its own digital stack and its own read draws (its
// own rng); finished strings drop out. At each input position the running
// strings are grouped by input symbol (at second order the weights do not
// depend on the input, whose one-hot vector joins the read in the
// contraction, v = [r; x], and all running strings form one group), and
// each group runs on buffers that hold it batch-innermost, in chunks of
// lanes strings, so that the kernels (kernels_*.go) vectorize over the
// strings.
//
// Every iteration of an input sees the same read (Net), so the contraction
// of eq. (1) with the context v (the read, and at second order the input),
//
//	C[j, i] = Σ_k W[i, j, k, l]·v_k,
//
// is one J×J matrix per string and input (kForm), and each of the K
// iterations is pre = b + C·z (kIter), lane by lane; the action neurons'
// A×J matrix likewise. The groups are formed once per input, not once per
// iteration. The backward pass runs the iterations in reverse on the same
// matrices (kIterBack), sums their outer products G = Σ_it z_it ⊗ δpre_it
// (kOuterSum), and contracts G with the weights once per input: the read's
// gradient (kBackRows) at once, the weights' (kGradLog) over the logs of
// all of a symbol's groups at the end. Per input and string that is about
// 3·J²·C + 3·K·J² multiply-adds, against 3·K·J²·C had each iteration
// contracted the weights (docs/performance.md).
//
// The forward pass, the derivatives and the read draws of each string are
// those of Net.Step/StepVJP (digital stack, straight-through state neurons,
// the one-step soft-stack derivative of the read); only the order of
// floating-point sums differs. Supported: both orders, refinement K ≥ 1,
// NoReadGrad, TwoSided. Not supported: SoftStack (CheckBatch says so).
type Batch struct {
	n      *Net
	B      int
	bp     int // B rounded up to whole chunks
	refine int
	ins    [][]int
	steps  []int
	T      int
	stacks []stack.Digital
	rngs   []*rand.Rand
	groups [][][]int // groups[t][l]: the strings with input l at position t (second order: all in groups[t][0])
	col    []float64 // scratch: one string's action pre-activations
	rbase  []float64 // scratch: R drawn read values
	sym    symState
}

// symGroup holds one group (the strings with one input symbol) at one input
// position: what the backward pass needs of its forward pass, in group
// buffers (rows per string, batch-innermost, at(rows, r, m)).
type symGroup struct {
	l     int
	idx   []int
	nc    int
	moved bool      // some string of the group moves its stack
	v     []float64 // C rows: the read (and at second order the one-hot input)
	z     []float64 // (K+1)·J rows: the state before each iteration and after the last
	dsig  []float64 // K·J rows: σ'(pre) of each iteration
	act   []float64 // A rows: the action pre-activations (moved)
	cm    []float64 // J·J rows: C for Ws, row j·J+i
	ca    []float64 // J·A rows: C for Wa (moved)
	soff  int       // the group's first chunk in its symbol's log of Ws
	aoff  int       // and of Wa (moved)
}

// gradLog collects, for one input symbol, the outer-product sums G and the
// read vectors v of every group of that symbol over a backward pass, for
// one weight-gradient contraction (kGradLog) at the end. Its chunks are one
// row longer than their rows: with chunks of exactly 4 KiB (J = 8), the
// contraction's walk over the chunks hit one cache set.
type gradLog struct {
	d, z []float64
	n    int // chunks
}

// logStride is the chunk stride of a log of rows rows.
func logStride(rows int) int { return (rows + 1) * lanes }

// symState holds Batch's records of each input position and its scratch.
type symState struct {
	sg     [][]symGroup // sg[t]: the groups of input position t
	gidx   []int        // T·B: string b's group at t
	pos    []int        // T·B: its place in the group
	moved  []bool       // T·B
	noop   []bool       // T·B
	cstar  []int        // T·B
	fprim  []float64    // T·B
	g      []float64    // T·B·R: ∂r'/∂f̂ at the action taken
	rn     []float64    // T·B·R: the read after input t
	logit  []float64    // T·K·B
	zs, rs []float64    // B·J, B·R: the state between inputs
	pre    []float64    // scratch: J rows
	asig   []float64    // scratch: A rows, σ' of the action neurons
	lg     []float64    // scratch: 1 row
	// backward
	dz, dr, dpn   []float64 // B·J, B·R, B·R: gradients on the state and read between inputs, and on the read an input's action gave
	dout          []float64 // K·bp: the output terms' derivatives at one input
	ob, yb, wb    []float64 // K·bp: their logits, labels and weights (0: no term)
	dzc, dv, dpre []float64 // scratch: J, C and K·J rows (δpre of each iteration)
	dact, dO      []float64 // scratch: A rows, K rows
	accBs, accWo  []float64 // J·lanes: lane sums
	accBa         []float64 // A·lanes
	accBo         []float64 // lanes
	sv, dsv       []float64 // one string's state and its gradient
	slog, alog    []gradLog // per input symbol: the logs of Ws's and Wa's gradients
}

var _ nn.Batcher = (*Net)(nil)

// CheckBatch reports whether n can run in a Batch: no SoftStack.
func (n *Net) CheckBatch() error {
	if n.SoftStack {
		return errors.New("the lock_step batch runs on the digital stack only, not with soft_stack")
	}
	return nil
}

// NewBatch returns a lock-step batch runner for n (see CheckBatch).
func NewBatch(n *Net) (*Batch, error) {
	if err := n.CheckBatch(); err != nil {
		return nil, err
	}
	return &Batch{n: n}, nil
}

// NewBatch is NewBatch(n), as an nn.Batcher.
func (n *Net) NewBatch() (nn.Batch, error) {
	bt, err := NewBatch(n)
	if err != nil {
		return nil, err
	}
	return bt, nil
}

func grow[T any](v []T, n int) []T {
	if cap(v) < n {
		return make([]T, n)
	}
	return v[:n]
}

func zeroed(v []float64, n int) []float64 {
	v = grow(v, n)
	clear(v)
	return v
}

// setup sizes the batch for the strings ins and groups them by input
// symbol at each position.
func (bt *Batch) setup(ins [][]int, refine int, rngs []*rand.Rand) {
	n := bt.n
	R, A, B := n.R(), n.A, len(ins)
	bt.B, bt.refine, bt.ins, bt.rngs = B, refine, ins, rngs
	bt.bp = chunks(B) * lanes
	bt.steps = grow(bt.steps, B)
	bt.T = 0
	for b, in := range ins {
		bt.steps[b] = len(in)
		bt.T = max(bt.T, len(in))
	}
	for len(bt.groups) < bt.T {
		bt.groups = append(bt.groups, nil)
	}
	for t := range bt.T {
		g := grow(bt.groups[t], n.X())
		for l := range g {
			g[l] = g[l][:0]
		}
		for b, in := range ins {
			if t < len(in) {
				l := in[t]
				if n.Order == Second {
					l = 0
				}
				g[l] = append(g[l], b)
			}
		}
		bt.groups[t] = g
	}
	bt.stacks = grow(bt.stacks, B)
	bt.col = grow(bt.col, A)
	bt.rbase = grow(bt.rbase, R)
}

// Forward runs the strings ins[b] (input indices, the end marker included)
// with K = refine iterations per input, string b drawing its reads from
// rngs[b] (nil: evaluation mode, the midpoints).
func (bt *Batch) Forward(ins [][]int, refine int, rngs []*rand.Rand) {
	n, ss := bt.n, &bt.sym
	J, R, B := n.J, n.R(), len(ins)
	bt.setup(ins, refine, rngs)
	T := bt.T
	ss.gidx, ss.pos = grow(ss.gidx, T*B), grow(ss.pos, T*B)
	ss.moved, ss.noop, ss.cstar = grow(ss.moved, T*B), grow(ss.noop, T*B), grow(ss.cstar, T*B)
	ss.fprim, ss.g, ss.rn = grow(ss.fprim, T*B), grow(ss.g, T*B*R), grow(ss.rn, T*B*R)
	ss.logit = grow(ss.logit, T*refine*B)
	ss.zs, ss.rs = zeroed(ss.zs, B*J), grow(ss.rs, B*R)
	for b := range B {
		bt.stacks[b].Reset()
		ss.zs[b*J] = 1
		startRead(bt.rng(b), ss.rs[b*R:(b+1)*R])
	}
	ss.slog, ss.alog = grow(ss.slog, n.X()), grow(ss.alog, n.X())
	for l := range ss.slog {
		ss.slog[l].n, ss.alog[l].n = 0, 0
	}
	for len(ss.sg) < T {
		ss.sg = append(ss.sg, nil)
	}
	for t := range T {
		sgs := ss.sg[t][:0]
		for l, idx := range bt.groups[t] {
			if len(idx) == 0 {
				continue
			}
			if len(sgs) < cap(sgs) {
				sgs = sgs[:len(sgs)+1]
			} else {
				sgs = append(sgs, symGroup{})
			}
			g := &sgs[len(sgs)-1]
			g.l, g.idx, g.nc = l, idx, chunks(len(idx))
		}
		ss.sg[t] = sgs
		for gi := range sgs {
			bt.forwardGroup(t, gi)
		}
	}
}

// rng is string b's read stream (nil in evaluation mode).
func (bt *Batch) rng(b int) *rand.Rand {
	if bt.rngs == nil {
		return nil
	}
	return bt.rngs[b]
}

// forwardGroup runs the K iterations of input t for group gi.
func (bt *Batch) forwardGroup(t, gi int) {
	n, ss := bt.n, &bt.sym
	J, R, A, B, C, K := n.J, n.R(), n.A, bt.B, n.ctxRow(), bt.refine
	g := &ss.sg[t][gi]
	nc, W := g.nc, g.nc*lanes
	g.v = zeroed(g.v, C*W)
	g.z = grow(g.z, (K+1)*J*W)
	clear(g.z[:J*W])
	g.dsig = grow(g.dsig, K*J*W)
	g.moved = false
	for m, b := range g.idx {
		ss.gidx[t*B+b], ss.pos[t*B+b] = gi, m
		putCol(g.v, C, m, ss.rs[b*R:(b+1)*R])
		if C > R {
			g.v[at(C, R+bt.ins[b][t], m)] = 1
		}
		putCol(g.z, J, m, ss.zs[b*J:(b+1)*J])
		g.moved = g.moved || bt.ins[b][t] < n.L
	}
	g.soff = ss.slog[g.l].n
	ss.slog[g.l].n += nc
	if g.moved {
		g.aoff = ss.alog[g.l].n
		ss.alog[g.l].n += nc
	}
	ws, wa := bt.bases(g.l)
	g.cm = grow(g.cm, J*J*W)
	kForm(g.cm, n.Ws, ws, C, J*J, g.v, nc)
	if g.moved {
		g.ca = grow(g.ca, J*A*W)
		kForm(g.ca, n.Wa, wa, C, J*A, g.v, nc)
		g.act = grow(g.act, A*W)
		kApply(g.act, n.Ba, g.ca, g.z[:J*W], J, A, nc)
		ss.asig = grow(ss.asig, A*W)
		dsigmoid(ss.asig, g.act) // σ' of the action neurons, for f̂'(v*)
	}
	a := bt.col
	for m, b := range g.idx {
		tb := t*B + b
		l := bt.ins[b][t]
		r, rn := ss.rs[b*R:(b+1)*R], ss.rn[tb*R:(tb+1)*R]
		ss.moved[tb] = l < n.L
		if !ss.moved[tb] { // the end marker: the stack does not move
			copy(rn, r)
			continue
		}
		getCol(a, g.act, A, m)
		op, cstar := decideOp(a)
		ss.cstar[tb], ss.fprim[tb], ss.noop[tb] = cstar, 2*ss.asig[at(A, cstar, m)], op == grammar.Noop
		move(&bt.stacks[b], op, a[cstar], l, bt.rng(b), r, bt.rbase, ss.g[tb*R:(tb+1)*R], rn, bt.n.twoSided())
		copy(r, rn)
	}
	ss.pre = grow(ss.pre, J*W)
	ss.lg = grow(ss.lg, W)
	pre, lg := ss.pre, ss.lg
	for it := range K {
		z, zn := g.z[it*J*W:(it+1)*J*W], g.z[(it+1)*J*W:(it+2)*J*W]
		kIter(zn, g.dsig[it*J*W:(it+1)*J*W], lg, pre, n.Bs, g.cm, z, n.Wo, n.Bo[0], J, nc)
		for m, b := range g.idx {
			ss.logit[(t*K+it)*B+b] = lg[m] // one row: lane m is at m
		}
	}
	zK := g.z[K*J*W:]
	for m, b := range g.idx {
		getCol(ss.zs[b*J:(b+1)*J], zK, J, m)
	}
}

// Backward runs the reverse sweep of the last Forward with the loss terms
// of ls, ADDS the gradient of the summed loss of all strings into grad, and
// returns that loss.
func (bt *Batch) Backward(ls nn.BatchLoss, grad []float64) float64 {
	n, ss := bt.n, &bt.sym
	J, R, A, B, K := n.J, n.R(), n.A, bt.B, bt.refine
	S := J + 2*R
	gWs, gBs, gWa, gBa, gWo, gBo := n.grads(grad)
	ss.dz, ss.dr = zeroed(ss.dz, B*J), zeroed(ss.dr, B*R)
	ss.dpn = grow(ss.dpn, B*R)
	ss.accBs, ss.accWo = zeroed(ss.accBs, J*lanes), zeroed(ss.accWo, J*lanes)
	ss.accBa, ss.accBo = zeroed(ss.accBa, A*lanes), zeroed(ss.accBo, lanes)
	ss.sv, ss.dsv = grow(ss.sv, S), grow(ss.dsv, S)
	C := n.ctxRow()
	for l := range ss.slog {
		sl, al := &ss.slog[l], &ss.alog[l]
		sl.d, sl.z = grow(sl.d, logStride(J*J)*sl.n), grow(sl.z, logStride(C)*sl.n)
		al.d, al.z = grow(al.d, logStride(J*A)*al.n), grow(al.z, logStride(C)*al.n)
	}
	loss := 0.0
	for t := bt.T - 1; t >= 0; t-- {
		loss += bt.outTerms(ls, t, K, ss.logit[t*K*B:(t+1)*K*B])
		for b := range B {
			if t >= bt.steps[b] {
				continue
			}
			// Between inputs the pending read equals the read and has no
			// gradient of its own (backwardGroup passes none back), so
			// dpn, the gradient on the read after input t, is dr's, plus
			// what the state terms put on the pending read.
			dz, dr, dpn := ss.dz[b*J:(b+1)*J], ss.dr[b*R:(b+1)*R], ss.dpn[b*R:(b+1)*R]
			copy(dpn, dr)
			if ls.State != nil {
				tb := t*B + b
				g := &ss.sg[t][ss.gidx[tb]]
				getCol(ss.sv[:J], g.z[K*J*g.nc*lanes:], J, ss.pos[tb])
				rn := ss.rn[tb*R : (tb+1)*R]
				copy(ss.sv[J:J+R], rn)
				copy(ss.sv[J+R:], rn)
				copy(ss.dsv, dz)
				copy(ss.dsv[J:], dr)
				clear(ss.dsv[J+R:])
				loss += ls.State(b, t, ss.sv, ss.dsv)
				copy(dz, ss.dsv[:J])
				for k := range R {
					dpn[k] = ss.dsv[J+k] + ss.dsv[J+R+k]
				}
			}
		}
		for gi := range ss.sg[t] {
			loss += bt.backwardGroup(t, gi, ls)
		}
	}
	for l := range ss.slog {
		ws, wa := bt.bases(l)
		if sl := ss.slog[l]; sl.n > 0 {
			kGradLog(gWs, ws, C, J*J, sl.d, logStride(J*J), sl.z, logStride(C), sl.n)
		}
		if al := ss.alog[l]; al.n > 0 {
			kGradLog(gWa, wa, C, J*A, al.d, logStride(J*A), al.z, logStride(C), al.n)
		}
	}
	laneSums(gBs, ss.accBs)
	laneSums(gWo, ss.accWo)
	laneSums(gBa, ss.accBa)
	laneSums(gBo, ss.accBo)
	return loss
}

// outTerms computes the output terms of input t, whose K iterations'
// logits are logits[it*B + b]: their derivatives by the logits go to
// bt.sym.dout[it*bt.bp + b]; it returns their loss.
func (bt *Batch) outTerms(ls nn.BatchLoss, t, K int, logits []float64) float64 {
	ss, B := &bt.sym, bt.B
	n := K * bt.bp
	ss.dout, ss.ob, ss.yb, ss.wb = grow(ss.dout, n), zeroed(ss.ob, n), zeroed(ss.yb, n), zeroed(ss.wb, n)
	for b := range B {
		if t >= bt.steps[b] {
			continue
		}
		y, on := ls.Target(b, t)
		if !on {
			continue
		}
		for it := range K {
			q := it*bt.bp + b
			ss.ob[q], ss.yb[q], ss.wb[q] = logits[it*B+b], y, 1
		}
	}
	return kBCE(ss.dout, ss.ob, ss.yb, ss.wb)
}

// laneSums adds into dst[r] the sum of row r of acc (lanes values each).
func laneSums(dst, acc []float64) {
	for r := range dst {
		s := 0.0
		for _, v := range acc[r*lanes : (r+1)*lanes] {
			s += v
		}
		dst[r] += s
	}
}

// backwardGroup runs the reverse sweep of input t for group gi: from the
// gradient with respect to the state after the input (ss.dz, ss.dpn) to the
// one before it (ss.dz, ss.dr), logging the weights' gradients.
func (bt *Batch) backwardGroup(t, gi int, ls nn.BatchLoss) float64 {
	n, ss := bt.n, &bt.sym
	J, R, A, B, C, K := n.J, n.R(), n.A, bt.B, n.ctxRow(), bt.refine
	g := &ss.sg[t][gi]
	nc, W := g.nc, g.nc*lanes
	ss.dzc, ss.dO = zeroed(ss.dzc, J*W), zeroed(ss.dO, K*W)
	dzc, dO := ss.dzc, ss.dO
	for m, b := range g.idx {
		putCol(dzc, J, m, ss.dz[b*J:(b+1)*J])
		for it := range K {
			dO[it*W+m] = ss.dout[it*bt.bp+b]
		}
	}
	ws, wa := bt.bases(g.l)
	// G = Σ_it z_it ⊗ δpre_it goes straight into the symbol's log.
	sl := &ss.slog[g.l]
	gcs := logStride(J * J)
	G := sl.d[g.soff*gcs:]
	ss.dpre = grow(ss.dpre, K*J*W)
	for it := K - 1; it >= 0; it-- {
		zn := g.z[(it+1)*J*W : (it+2)*J*W]
		dsig := g.dsig[it*J*W : (it+1)*J*W]
		dpre := ss.dpre[it*J*W : (it+1)*J*W]
		kIterBack(dzc, dpre, ss.accBs, ss.accWo, ss.accBo, dO[it*W:(it+1)*W], zn, dsig, n.Wo, g.cm, J, nc)
	}
	kOuterSum(G, gcs, g.z, ss.dpre, K, J, J, nc)
	ss.dv = zeroed(ss.dv, C*W)
	dv := ss.dv
	kBackRows(dv, n.Ws, ws, C, J*J, G, gcs, nc)
	toLog(sl.z, g.v, C, nc, g.soff)
	loss := 0.0
	if g.moved {
		ss.dact = zeroed(ss.dact, A*W)
		dact := ss.dact
		for m, b := range g.idx {
			tb := t*B + b
			if !ss.moved[tb] {
				continue
			}
			if !n.NoReadGrad {
				dot := 0.0
				for k := range R {
					dot += ss.g[tb*R+k] * ss.dpn[b*R+k]
				}
				dact[at(A, ss.cstar[tb], m)] = ss.fprim[tb] * dot
			}
			if ls.Action != nil {
				if op, w, ok := ls.Action(b, t); ok && w != 0 {
					tau, lo := actionTarget(grammar.Op(op)), 0.0
					for c := range A {
						l, d := actionTerm(g.act[at(A, c, m)], tau, w)
						lo += l
						dact[at(A, c, m)] += d
					}
					loss += w * lo
				}
			}
		}
		kAddRows(ss.accBa, dact, A, nc)
		z0 := g.z[:J*W]
		al := &ss.alog[g.l]
		acs := logStride(J * A)
		Ga := al.d[g.aoff*acs:]
		kOuterSum(Ga, acs, z0, dact, 1, J, A, nc)
		kBackRows(dv, n.Wa, wa, C, J*A, Ga, acs, nc)
		toLog(al.z, g.v, C, nc, g.aoff)
		kApplyT(dzc, g.ca, dact, J, A, nc)
	}
	for m, b := range g.idx {
		tb := t*B + b
		getCol(ss.dz[b*J:(b+1)*J], dzc, J, m)
		pass := !ss.moved[tb] || ss.noop[tb] // the end marker, or a no-op: r' = r
		col := dv[at(C, 0, m):]
		for k := range R {
			d := col[k*lanes]
			if pass {
				d += ss.dpn[b*R+k]
			}
			ss.dr[b*R+k] = d
		}
	}
	return loss
}

// Logit is string b's output logit at its iteration i.
func (bt *Batch) Logit(b, i int) float64 { return bt.sym.logit[i*bt.B+b] }

// toLog copies the nc chunks of the group buffer src (rows rows) into the
// log dst as its chunks off … off+nc−1.
func toLog(dst, src []float64, rows, nc, off int) {
	cs := logStride(rows)
	for c := range nc {
		copy(dst[(off+c)*cs:(off+c)*cs+rows*lanes], src[c*rows*lanes:(c+1)*rows*lanes])
	}
}

// chunks is the number of chunks of lanes strings that hold n strings.
func chunks(n int) int { return (n + lanes - 1) / lanes }

// at is the index of row r of string m in a group buffer of rows rows
// (kernels_generic.go).
func at(rows, r, m int) int { return (m/lanes*rows+r)*lanes + m%lanes }

// putCol writes src into string m's rows 0 … len(src)−1 of the group
// buffer g (rows rows).
func putCol(g []float64, rows, m int, src []float64) {
	col := g[at(rows, 0, m):]
	for r, v := range src {
		col[r*lanes] = v
	}
}

// getCol reads string m's rows 0 … len(dst)−1 of the group buffer g (rows
// rows) into dst.
func getCol(dst, g []float64, rows, m int) {
	col := g[at(rows, 0, m):]
	for r := range dst {
		dst[r] = col[r*lanes]
	}
}

// bases returns the offsets of Ws and Wa at input l: the weights from
// state neuron j and context row k (read, or at second order read and
// input) to output i are at W[base + (j·nout + i)·C + k].
func (bt *Batch) bases(l int) (ws, wa int) {
	J, A, C := bt.n.J, bt.n.A, bt.n.ctxRow()
	if bt.n.Order == Second {
		return 0, 0
	}
	return l * J * J * C, l * J * A * C
}

// fillBias sets every string's rows of the group buffer out to b.
func fillBias(out, b []float64) {
	for c := 0; c+len(b)*lanes <= len(out); c += len(b) * lanes {
		for i, v := range b {
			row := out[c+i*lanes : c+i*lanes+lanes]
			for q := range row {
				row[q] = v
			}
		}
	}
}
