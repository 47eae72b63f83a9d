package nspda

import (
	"errors"
	"math/rand/v2"
	"slices"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/stack"
)

// Batch runs the strings of a minibatch through a Net in lock-step, for
// BPTT: iteration i of every string that is still running is computed
// together. Each string keeps its own digital stack, its own read
// draws (its own rng) and its own record; finished strings drop out. At each
// input position the running strings are grouped by input symbol, and each
// group's contractions run on buffers that hold the group batch-innermost,
// so that the kernels (kFwd, kBack, kGrad) vectorize over the strings. At
// second order the weights do not depend on the input, whose one-hot vector
// joins the read in the contraction (v = [r; x]): all running strings form
// one group.
//
// The forward pass, the derivatives and the read draws of each string are
// those of Net.Step/StepVJP (digital stack, straight-through state
// neurons, the one-step soft-stack derivative of the read); only the order
// of floating-point sums differs. Supported: both orders, refinement K ≥ 1,
// NoReadGrad. Not supported: SoftStack (Check says so).
//
// The state of string b is held unit-major: unit u (the J state neurons,
// the R read neurons, the R pending read neurons) at u*B + b.
type Batch struct {
	n      *Net
	B      int
	refine int
	ins    [][]int
	steps  []int
	T      int
	stacks []stack.Digital
	rngs   []*rand.Rand
	st     [][]float64 // st[i]: the states before iteration i
	recs   []batchRec  // per iteration
	groups [][][]int   // groups[t][l]: the strings with input l at position t (second order: all in groups[t][0])
	gs, ga []chunkLog  // per group l: the chunks of the gradients of Ws and Wa
	zin    []float64   // scratch: a group's state and read
	dzin   []float64   // scratch: their gradient
	zr     []float64   // scratch: a group's z_j·r_k
	gout   []float64   // scratch: a group's outputs or their gradients
	dzr    []float64   // scratch: the gradient of zr
	col    []float64   // scratch: one string's action pre-activations
	ds     []float64   // scratch: (J+2R)×B
	ds2    []float64   // scratch: (J+2R)×B
	dpre   []float64   // scratch: J×B
	dact   []float64   // scratch: A×B
	sv     []float64   // scratch: one string's state
	dsv    []float64   // scratch: one string's state gradient
	dpn    []float64   // scratch: R
	gsig   []float64   // scratch: a group's σ'
	rbase  []float64   // scratch: R drawn read values
	rg     []float64   // scratch: R
	rold   []float64   // scratch: R, a string's read before its action
	rn     []float64   // scratch: R
	nIt    int         // iterations of the longest string
}

// batchRec is one lock-step iteration's record.
type batchRec struct {
	dsig  []float64 // J×B: σ'(pre)
	act   []float64 // A×B: action pre-activations (moved strings)
	g     []float64 // R×B: ∂r'/∂f̂ at the action taken
	logit []float64 // B
	fprim []float64 // B
	cstar []int     // B
	moved []bool    // B
	noop  []bool    // B
}

var _ nn.Batcher = (*Net)(nil)

// CheckBatch reports whether n can run in a Batch: no SoftStack.
func (n *Net) CheckBatch() error {
	if n.SoftStack {
		return errors.New("the lock-step batch runs on the digital stack only, not with SoftStack")
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

// Forward runs the strings ins[b] (input indices, the end marker included)
// with K = refine iterations per input, string b drawing its reads from
// rngs[b] (nil: evaluation mode, the midpoints).
func (bt *Batch) Forward(ins [][]int, refine int, rngs []*rand.Rand) {
	n := bt.n
	J, R, A, B := n.J, n.R(), n.A, len(ins)
	bt.B, bt.refine, bt.ins, bt.rngs = B, refine, ins, rngs
	bt.steps = grow(bt.steps, B)
	bt.T = 0
	for b, in := range ins {
		bt.steps[b] = len(in)
		bt.T = max(bt.T, len(in))
	}
	bt.nIt = bt.T * refine
	S := (J + 2*R) * B
	for len(bt.st) <= bt.nIt {
		bt.st = append(bt.st, nil)
	}
	for i := range bt.nIt + 1 {
		bt.st[i] = grow(bt.st[i], S)
	}
	for len(bt.recs) < bt.nIt {
		bt.recs = append(bt.recs, batchRec{})
	}
	for i := range bt.nIt {
		rc := &bt.recs[i]
		rc.dsig, rc.act, rc.g = grow(rc.dsig, J*B), grow(rc.act, A*B), grow(rc.g, R*B)
		rc.logit, rc.fprim = grow(rc.logit, B), grow(rc.fprim, B)
		rc.cstar, rc.moved, rc.noop = grow(rc.cstar, B), grow(rc.moved, B), grow(rc.noop, B)
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
	bt.rbase, bt.rg, bt.rn, bt.rold = grow(bt.rbase, R), grow(bt.rg, R), grow(bt.rn, R), grow(bt.rold, R)
	base := bt.rbase
	s := bt.st[0]
	clear(s)
	for b := range B {
		bt.stacks[b].Reset()
		s[b] = 1
		var rng *rand.Rand
		if rngs != nil {
			rng = rngs[b]
		}
		startRead(rng, base)
		for k, v := range base {
			s[(J+k)*B+b] = v
			s[(J+R+k)*B+b] = v
		}
	}
	for t := range bt.T {
		for it := range refine {
			bt.step(t*refine+it, t, it == 0, it == refine-1)
		}
	}
}

// chunks is the number of chunks of lanes strings that hold n strings.
func chunks(n int) int { return (n + lanes - 1) / lanes }

// at is the index of row r of string m in a group buffer of rows rows
// (kernels_generic.go).
func at(rows, r, m int) int { return (m/lanes*rows+r)*lanes + m%lanes }

// gather copies the state and read of the strings idx (from the state s)
// at input position t, and at second order their one-hot input, into the
// group buffer bt.zin (J+C rows, C = ctxRow()) and sets the group buffer bt.zr
// (J·C rows), or zr when not nil, to their products; the padding is zero.
func (bt *Batch) gather(s []float64, t int, idx []int, nc int, zr []float64) (zin, _ []float64) {
	J, R, B, C := bt.n.J, bt.n.R(), bt.B, bt.n.ctxRow()
	rows := J + C
	bt.zin = zeroed(bt.zin, rows*nc*lanes)
	zin = bt.zin
	for m, b := range idx {
		base := m/lanes*rows*lanes + m%lanes
		for u := range J + R {
			zin[base+u*lanes] = s[u*B+b]
		}
		if C > R {
			zin[base+(J+R+bt.ins[b][t])*lanes] = 1
		}
	}
	if zr == nil {
		bt.zr = grow(bt.zr, J*C*nc*lanes)
		zr = bt.zr
	}
	kOuter(zr, zin, J, C, nc)
	return zin, zr[:J*C*nc*lanes]
}

// extend returns v with n more elements (their values undefined).
func extend(v []float64, n int) []float64 {
	return slices.Grow(v, n)[:len(v)+n]
}

// bases returns the offsets and the state-neuron strides of Ws and Wa for
// group l, in the kernels' terms.
func (bt *Batch) bases(l int) (ws, wsj, wa, waj int) {
	J, A, C := bt.n.J, bt.n.A, bt.n.ctxRow()
	if bt.n.Order == Second {
		return 0, J * C, 0, A * C
	}
	return l * J * J * C, J * C, l * J * A * C, A * C
}

// anyMoved reports whether a string of idx moves its stack at input t.
func (bt *Batch) anyMoved(t int, idx []int) bool {
	for _, b := range idx {
		if bt.ins[b][t] < bt.n.L {
			return true
		}
	}
	return false
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

// toGroup copies rows u0 … u0+rows−1 of the strings idx of the batch-layout
// v (B strings) into the group buffer g, zeroing the padding.
func toGroup(g, v []float64, u0, rows, B int, idx []int) {
	clear(g)
	for r := range rows {
		src := v[(u0+r)*B : (u0+r+1)*B]
		for m, b := range idx {
			g[at(rows, r, m)] = src[b]
		}
	}
}

// step runs lock-step iteration i (input position t).
func (bt *Batch) step(i, t int, first, last bool) {
	n := bt.n
	J, R, A, B, L, C := n.J, n.R(), n.A, bt.B, n.L, bt.n.ctxRow()
	s, s2, rc := bt.st[i], bt.st[i+1], &bt.recs[i]
	for l, idx := range bt.groups[t] {
		if len(idx) == 0 {
			continue
		}
		nc := chunks(len(idx))
		_, zr := bt.gather(s, t, idx, nc, nil)
		ws, wsj, wa, waj := bt.bases(l)
		out := grow(bt.gout, max(J, A)*nc*lanes)
		bt.gout = out
		fillBias(out[:J*nc*lanes], n.Bs)
		kFwd(out, n.Ws, ws, wsj, C, J, J, zr, nc)
		dsg := grow(bt.gsig, J*nc*lanes)
		bt.gsig = dsg
		dsigmoid(dsg, out[:J*nc*lanes])
		for m, b := range idx {
			base := m/lanes*J*lanes + m%lanes
			for i2 := range J {
				zn := 0.0
				if out[base+i2*lanes] > 0 {
					zn = 1
				}
				s2[i2*B+b] = zn
				rc.dsig[i2*B+b] = dsg[base+i2*lanes]
			}
		}
		for _, b := range idx {
			rc.moved[b] = first && bt.ins[b][t] < L
		}
		if !first || !bt.anyMoved(t, idx) {
			continue
		}
		fillBias(out[:A*nc*lanes], n.Ba)
		kFwd(out, n.Wa, wa, waj, C, J, A, zr, nc)
		for c := range A {
			for m, b := range idx {
				rc.act[c*B+b] = out[at(A, c, m)]
			}
		}
		for _, b := range idx {
			if rc.moved[b] {
				bt.act(rc, s, s2, b, bt.ins[b][t])
			}
		}
	}
	for b := range B {
		if t >= bt.steps[b] {
			continue
		}
		if !rc.moved[b] {
			src := (J + R) * B // the pending read
			if first {         // the end marker: the stack does not move
				src = J * B
			}
			for k := range R {
				s2[(J+R+k)*B+b] = s[src+k*B+b]
			}
		}
		for k := range R {
			if last {
				s2[(J+k)*B+b] = s2[(J+R+k)*B+b]
			} else {
				s2[(J+k)*B+b] = s[(J+k)*B+b]
			}
		}
		o := n.Bo[0]
		for i2, w := range n.Wo {
			o += w * s2[i2*B+b]
		}
		rc.logit[b] = o
	}
}

// act decodes string b's action (its pre-activations in rc.act), moves its
// stack with symbol l, draws its reads, and writes the pending read into s2
// and the soft-stack derivative into rc.g: Net.act for one string.
func (bt *Batch) act(rc *batchRec, s, s2 []float64, b, l int) {
	n := bt.n
	J, R, B := n.J, n.R(), bt.B
	a := bt.col
	for c := range a {
		a[c] = rc.act[c*B+b]
	}
	op, cstar, fprim := decide(a)
	rc.cstar[b], rc.fprim[b], rc.noop[b] = cstar, fprim, op == grammar.Noop
	var rng *rand.Rand
	if bt.rngs != nil {
		rng = bt.rngs[b]
	}
	r, g, rn := bt.rold, bt.rg, bt.rn
	for k := range r {
		r[k] = s[(J+k)*B+b]
	}
	move(&bt.stacks[b], op, a[cstar], l, rng, r, bt.rbase, g, rn)
	for k := range R {
		rc.g[k*B+b] = g[k]
		s2[(J+R+k)*B+b] = rn[k]
	}
}

// Logit is string b's output logit at its iteration i.
func (bt *Batch) Logit(b, i int) float64 { return bt.recs[i].logit[b] }

// state copies string b's state before iteration i into v (J+2R values).
func (bt *Batch) state(i, b int, v []float64) {
	for u := range v {
		v[u] = bt.st[i][u*bt.B+b]
	}
}

// Backward runs the reverse sweep of the last Forward with the loss terms
// of ls, ADDS the gradient of the summed loss of all strings into grad, and
// returns that loss.
func (bt *Batch) Backward(ls nn.BatchLoss, grad []float64) float64 {
	n := bt.n
	J, R, A, B, C := n.J, n.R(), n.A, bt.B, bt.n.ctxRow()
	S := J + 2*R
	gWs, gBs, gWa, gBa, gWo, gBo := n.grads(grad)
	bt.ds, bt.ds2 = zeroed(bt.ds, S*B), zeroed(bt.ds2, S*B)
	bt.dpre, bt.dact = grow(bt.dpre, J*B), grow(bt.dact, A*B)
	bt.sv, bt.dsv, bt.dpn = grow(bt.sv, S), grow(bt.dsv, S), grow(bt.dpn, R)
	ds, ds2, dpre, dact, dpn := bt.ds, bt.ds2, bt.dpre, bt.dact, bt.dpn
	bt.gs, bt.ga = grow(bt.gs, n.X()), grow(bt.ga, n.X())
	for l := range bt.gs {
		bt.gs[l] = chunkLog{d: bt.gs[l].d[:0], z: bt.gs[l].z[:0]}
		bt.ga[l] = chunkLog{d: bt.ga[l].d[:0], z: bt.ga[l].z[:0]}
	}
	loss := 0.0
	for i := bt.nIt - 1; i >= 0; i-- {
		t, it := i/bt.refine, i%bt.refine
		first, last := it == 0, it == bt.refine-1
		s, s2, rc := bt.st[i], bt.st[i+1], &bt.recs[i]
		clear(ds)
		clear(dpre)
		clear(dact)
		for b := range B {
			if t >= bt.steps[b] {
				continue
			}
			// The loss terms on the state after the iteration.
			lo, d := ls.Out(b, t, it, rc.logit[b])
			loss += lo
			if d != 0 {
				for j, w := range n.Wo {
					ds2[j*B+b] += d * w
					gWo[j] += d * s2[j*B+b]
				}
				gBo[0] += d
			}
			if last && ls.State != nil {
				bt.state(i+1, b, bt.sv)
				for u := range S {
					bt.dsv[u] = ds2[u*B+b]
				}
				loss += ls.State(b, t, bt.sv, bt.dsv)
				for u := range S {
					ds2[u*B+b] = bt.dsv[u]
				}
			}
			// The reads: StepVJP's switch.
			for k := range R {
				dpn[k] = ds2[(J+R+k)*B+b]
				if last {
					dpn[k] += ds2[(J+k)*B+b]
				} else {
					ds[(J+k)*B+b] += ds2[(J+k)*B+b]
				}
			}
			switch {
			case rc.moved[b]:
				if rc.noop[b] {
					for k := range R {
						ds[(J+k)*B+b] += dpn[k]
					}
				}
				if !n.NoReadGrad {
					dot := 0.0
					for k := range R {
						dot += rc.g[k*B+b] * dpn[k]
					}
					dact[rc.cstar[b]*B+b] = rc.fprim[b] * dot
				}
				if ls.Action != nil {
					if op, w, ok := ls.Action(b, t); ok && w != 0 {
						loss += bt.actionLoss(rc, b, op, w)
					}
				}
				for c := range A {
					gBa[c] += dact[c*B+b]
				}
			case first:
				for k := range R {
					ds[(J+k)*B+b] += dpn[k]
				}
			default:
				for k := range R {
					ds[(J+R+k)*B+b] += dpn[k]
				}
			}
			for j := range J {
				d := ds2[j*B+b] * rc.dsig[j*B+b]
				dpre[j*B+b] = d
				gBs[j] += d
			}
		}
		// The contractions, one group of strings per input symbol.
		for l, idx := range bt.groups[t] {
			if len(idx) == 0 {
				continue
			}
			nc := chunks(len(idx))
			// The weight gradient waits for every chunk (kGrad at the end):
			// the group's products and output gradients go to its logs.
			gs := &bt.gs[l]
			zoff, doff := len(gs.z), len(gs.d)
			gs.z, gs.d, gs.nc = extend(gs.z, J*C*nc*lanes), extend(gs.d, J*nc*lanes), gs.nc+nc
			zin, zr := bt.gather(s, t, idx, nc, gs.z[zoff:])
			ws, wsj, wa, waj := bt.bases(l)
			out := gs.d[doff:]
			toGroup(out, dpre, 0, J, B, idx)
			dzr := zeroed(bt.dzr, J*C*nc*lanes)
			bt.dzr = dzr
			kBack(dzr, n.Ws, ws, wsj, C, J, J, out, nc)
			if first && bt.anyMoved(t, idx) {
				ga := &bt.ga[l]
				aoff := len(ga.d)
				ga.z, ga.d, ga.nc = append(ga.z, zr...), extend(ga.d, A*nc*lanes), ga.nc+nc
				aout := ga.d[aoff:]
				toGroup(aout, dact, 0, A, B, idx)
				kBack(dzr, n.Wa, wa, waj, C, J, A, aout, nc)
			}
			dzin := zeroed(bt.dzin, (J+C)*nc*lanes)
			bt.dzin = dzin
			kOuterVJP(dzin, dzr, zin, J, C, nc)
			for u := range J + R { // the input has no gradient
				row := ds[u*B : u*B+B]
				for m, b := range idx {
					row[b] += dzin[at(J+C, u, m)]
				}
			}
		}
		ds, ds2 = ds2, ds
	}
	bt.ds, bt.ds2 = ds, ds2
	for l := range bt.gs {
		ws, wsj, wa, waj := bt.bases(l)
		if gs := bt.gs[l]; gs.nc > 0 {
			kGrad(gWs, ws, wsj, C, J, J, gs.d, gs.z, gs.nc)
		}
		if ga := bt.ga[l]; ga.nc > 0 {
			kGrad(gWa, wa, waj, C, J, A, ga.d, ga.z, ga.nc)
		}
	}
	return loss
}

// chunkLog collects a contraction's group buffers over a backward pass: the
// output gradients d and the products z of nc chunks, for one kGrad at the
// end (whose sums over the strings then run over every chunk at once).
type chunkLog struct {
	d, z []float64
	nc   int
}

// actionLoss adds the action loss of string b at the iteration of rc (target
// op, weight w) into bt.dact and returns it: ActionLoss for one string.
func (bt *Batch) actionLoss(rc *batchRec, b, op int, w float64) float64 {
	tau := actionTarget(grammar.Op(op))
	B, loss := bt.B, 0.0
	for c := range bt.n.A {
		l, dv := actionTerm(rc.act[c*B+b], tau, w)
		loss += l
		bt.dact[c*B+b] += dv
	}
	return w * loss
}

// dsigmoidGo is dsigmoid with nn.Sigmoid, as Net.Step computes it.
func dsigmoidGo(dst, src []float64) {
	dst = dst[:len(src)]
	for q, v := range src {
		sg := nn.Sigmoid(v)
		dst[q] = sg * (1 - sg)
	}
}

// kOuterGo is kOuter in plain Go.
func kOuterGo(zr, zin []float64, J, R, nc int) {
	for c := range nc {
		in := zin[c*(J+R)*lanes : (c+1)*(J+R)*lanes]
		out := zr[c*J*R*lanes : (c+1)*J*R*lanes]
		for j := range J {
			for k := range R {
				for q := range lanes {
					out[(j*R+k)*lanes+q] = in[j*lanes+q] * in[(J+k)*lanes+q]
				}
			}
		}
	}
}

// kOuterVJPGo is kOuterVJP in plain Go.
func kOuterVJPGo(dzin, dzr, zin []float64, J, R, nc int) {
	for c := range nc {
		in := zin[c*(J+R)*lanes : (c+1)*(J+R)*lanes]
		din := dzin[c*(J+R)*lanes : (c+1)*(J+R)*lanes]
		dz := dzr[c*J*R*lanes : (c+1)*J*R*lanes]
		for j := range J {
			for k := range R {
				for q := range lanes {
					d := dz[(j*R+k)*lanes+q]
					din[j*lanes+q] += d * in[(J+k)*lanes+q]
					din[(J+k)*lanes+q] += d * in[j*lanes+q]
				}
			}
		}
	}
}
