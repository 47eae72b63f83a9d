package extract

import (
	"cmp"
	"encoding/binary"
	"slices"
	"unicode/utf8"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
)

// Counterexample is a string on which the extracted PDA and another machine
// (the network or the target language) disagree.
type Counterexample struct {
	String    string `json:"string"`
	Extracted bool   `json:"extracted_accepts"`
	Other     bool   `json:"other_accepts"`
}

// Agreement counts the strings of one length or one set on which the
// extracted PDA disagrees with the network and with the target.
type Agreement struct {
	Name            string `json:"name,omitempty"`   // a set's name
	Length          int    `json:"length,omitempty"` // a length's
	Strings         int    `json:"strings"`
	NetworkDisagree int    `json:"network_disagree"`
	TargetDisagree  int    `json:"target_disagree"` // 0 without a target
}

// Comparison is the agreement of an extracted PDA with its network and,
// optionally, a target, with the shortest counterexamples of each kind
// (shortest first, then in alphabet order; at most Keep of each).
type Comparison struct {
	Agreements     []Agreement      `json:"agreements"`
	NetworkCounter []Counterexample `json:"network_counterexamples,omitempty"`
	TargetCounter  []Counterexample `json:"target_counterexamples,omitempty"`
}

// Keep is the number of counterexamples of each kind a Comparison keeps.
const Keep = 5

// node is one symbol of a stack that the configurations of the walk share:
// a push adds a node over the one below (-1: the bottom), a pop goes back
// to the node below. A configuration's stack is its top node, so a step
// costs O(1) memory, not a copy of the stack.
type node struct {
	sym, below int32
}

// pdaConf is a PDA configuration of the walk: its state, its stack's top
// node (-1: empty) and whether it died on a missing transition.
type pdaConf struct {
	state, top int32
	dead       bool
}

// frame is the walk's configuration after the string's first d symbols
// (d its depth): the network's state (an interned set of active neurons),
// the symbol its last action popped and its stack's top node, the two
// PDAs', the next symbol to try, and the node arena's length on entry
// (the nodes above it belong to deeper frames).
type frame struct {
	active, popped, net int32
	ext, tgt            pdaConf
	next                int
	nodes               int
}

// walker runs the network, the extracted PDA and the target in lockstep
// over every string up to a length, depth first, sharing prefixes: its
// memory is O(maxLen) frames and stack nodes plus one copy of each
// distinct set of active neurons met (at most the explored states).
type walker struct {
	run      *nspda.Runner
	L        int
	ext, tgt *grammar.PDA
	syms     []int
	frames   []frame
	nodes    []node
	actives  [][]int
	interned map[string]int32
	key      []byte
	top      [1]int
	cmp      *Comparison
}

// Exhaustive compares the extracted PDA ext with the network m (with refine
// iterations per symbol) and with target (nil for none) on every string of
// length 0 to maxLen. Its cost is that of one network step and one end
// marker per string, Σ L^n, not of running each string from the start.
func Exhaustive(m *nspda.Model, refine int, ext, target *grammar.PDA, maxLen int) *Comparison {
	w := &walker{run: m.NewRunner(), L: m.L, ext: ext, tgt: target, cmp: &Comparison{}, interned: map[string]int32{}}
	w.run.Refine = max(1, refine)
	w.syms = make([]int, maxLen)
	w.frames = make([]frame, maxLen+1)
	w.cmp.Agreements = make([]Agreement, maxLen+1)
	for n := range w.cmp.Agreements {
		w.cmp.Agreements[n].Length = n
	}
	w.frames[0] = frame{active: w.intern([]int{0}), popped: -1, net: -1,
		ext: pdaConf{state: int32(ext.Start), top: -1}, tgt: pdaConf{top: -1}}
	if target != nil {
		w.frames[0].tgt.state = int32(target.Start)
	}
	w.walk(maxLen)
	return w.cmp
}

// walk visits every string up to maxLen depth first, in alphabet order.
func (w *walker) walk(maxLen int) {
	w.check(0)
	for d := 0; d >= 0; {
		f := &w.frames[d]
		if d == maxLen || f.next == w.L {
			d--
			continue
		}
		l := f.next
		f.next++
		w.nodes = w.nodes[:f.nodes]
		w.syms[d] = l
		w.frames[d+1] = w.step(f, l)
		d++
		w.check(d)
	}
}

// step returns the frame after symbol l from f.
func (w *walker) step(f *frame, l int) frame {
	w.setNet(f)
	op := w.run.Step(l)
	next := frame{active: w.intern(w.run.Active()), popped: int32(w.run.Stack.Popped()), net: w.apply(f.net, op, l)}
	next.ext = w.stepPDA(w.ext, f.ext, l)
	if w.tgt != nil {
		next.tgt = w.stepPDA(w.tgt, f.tgt, l)
	}
	next.nodes = len(w.nodes)
	return next
}

// setNet puts the runner in f's network configuration. The network sees
// only the top of its stack and the symbol last popped, so the runner's
// stack holds the top alone; apply keeps the rest.
func (w *walker) setNet(f *frame) {
	syms := w.top[:0]
	if f.net >= 0 {
		syms = w.top[:1]
		syms[0] = int(w.nodes[f.net].sym)
	}
	w.run.SetConfig(w.actives[f.active], syms, int(f.popped))
}

// apply returns the top node after op (push: of l) on the stack whose top
// is top; a pop of the empty stack does nothing.
func (w *walker) apply(top int32, op grammar.Op, l int) int32 {
	switch {
	case op == grammar.Push:
		w.nodes = append(w.nodes, node{sym: int32(l), below: top})
		return int32(len(w.nodes) - 1)
	case op == grammar.Pop && top >= 0:
		return w.nodes[top].below
	}
	return top
}

// topOf is the stack top as PDAs index it (L: empty).
func (w *walker) topOf(top int32) int {
	if top < 0 {
		return w.L
	}
	return int(w.nodes[top].sym)
}

// stepPDA returns c after symbol l in p.
func (w *walker) stepPDA(p *grammar.PDA, c pdaConf, l int) pdaConf {
	if c.dead {
		return c
	}
	t, ok := p.Lookup(int(c.state), l, w.topOf(c.top))
	if !ok {
		return pdaConf{dead: true}
	}
	return pdaConf{state: int32(t.To), top: w.apply(c.top, t.Op, l)}
}

// accepting reports whether p accepts in c at the end of the input.
func (w *walker) accepting(p *grammar.PDA, c pdaConf) bool {
	return !c.dead && p.AcceptsAt(int(c.state), w.topOf(c.top))
}

// intern returns the index of the set of active neurons, copying it when new.
func (w *walker) intern(active []int) int32 {
	w.key = w.key[:0]
	for _, j := range active {
		w.key = binary.AppendUvarint(w.key, uint64(j))
	}
	if i, ok := w.interned[string(w.key)]; ok {
		return i
	}
	i := int32(len(w.actives))
	w.interned[string(w.key)] = i
	w.actives = append(w.actives, slices.Clone(active))
	return i
}

// check compares the verdicts on the string of the first d symbols.
func (w *walker) check(d int) {
	f := &w.frames[d]
	w.setNet(f)
	w.run.Step(w.L)
	net := w.run.Prediction() > 0.5
	ext := w.accepting(w.ext, f.ext)
	a := &w.cmp.Agreements[d]
	a.Strings++
	if net != ext {
		a.NetworkDisagree++
		w.cmp.NetworkCounter = w.keep(w.cmp.NetworkCounter, d, ext, net)
	}
	if w.tgt != nil {
		if tgt := w.accepting(w.tgt, f.tgt); tgt != ext {
			a.TargetDisagree++
			w.cmp.TargetCounter = w.keep(w.cmp.TargetCounter, d, ext, tgt)
		}
	}
}

// keep adds the string of the first d symbols to the shortest
// counterexamples unless Keep shorter ones are kept already: a walk meets
// lengths in no order, and writing every long string out to compare it
// would cost O(maxLen²) where every string disagrees.
func (w *walker) keep(list []Counterexample, d int, ext, other bool) []Counterexample {
	if len(list) == Keep && utf8.RuneCountInString(list[Keep-1].String) < d {
		return list
	}
	return keep(list, Counterexample{w.ext.Decode(w.syms[:d]), ext, other})
}

// keep adds c to the shortest counterexamples (walks and sets meet strings
// in no particular order of length).
func keep(list []Counterexample, c Counterexample) []Counterexample {
	if len(list) == Keep && shortlex(list[Keep-1].String, c.String) <= 0 {
		return list
	}
	list = append(list, c)
	slices.SortStableFunc(list, func(a, b Counterexample) int { return shortlex(a.String, b.String) })
	return list[:min(len(list), Keep)]
}

func shortlex(a, b string) int {
	if c := cmp.Compare(utf8.RuneCountInString(a), utf8.RuneCountInString(b)); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// Labelled is a string with the target's verdict on it.
type Labelled struct {
	String string
	Member bool
}

// Set compares ext with the network on a set of labelled strings (whose
// labels are the target's verdicts), adding its Agreement to c.
func (c *Comparison) Set(name string, m *nspda.Model, refine int, ext *grammar.PDA, set []Labelled) error {
	run := m.NewRunner()
	run.Refine = max(1, refine)
	a := Agreement{Name: name, Strings: len(set)}
	for _, s := range set {
		syms, err := ext.Encode(s.String)
		if err != nil {
			return err
		}
		net, _ := run.Classify(syms)
		e := ext.Run(syms)
		if net != e {
			a.NetworkDisagree++
			c.NetworkCounter = keep(c.NetworkCounter, Counterexample{s.String, e, net})
		}
		if s.Member != e {
			a.TargetDisagree++
			c.TargetCounter = keep(c.TargetCounter, Counterexample{s.String, e, s.Member})
		}
	}
	c.Agreements = append(c.Agreements, a)
	return nil
}
