package extract

import (
	"cmp"
	"slices"

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

// netConf is a network configuration saved for a depth-first walk.
type netConf struct {
	active, stack []int
	popped        int
}

// walker runs the network, the extracted PDA and the target in lockstep
// over every string up to a length, sharing prefixes.
type walker struct {
	run      *nspda.Runner
	L        int
	ext, tgt *grammar.PDA
	syms     []int
	net      []netConf
	ec, tc   []grammar.Config
	cmp      *Comparison
}

// Exhaustive compares the extracted PDA ext with the network m (with refine
// iterations per symbol) and with target (nil for none) on every string of
// length 0 to maxLen. Its cost is that of one network step and one end
// marker per string, Σ L^n, not of running each string from the start.
func Exhaustive(m *nspda.Model, refine int, ext, target *grammar.PDA, maxLen int) *Comparison {
	w := &walker{run: m.NewRunner(), L: m.L, ext: ext, tgt: target, cmp: &Comparison{}}
	w.run.Refine = max(1, refine)
	w.syms = make([]int, maxLen)
	w.net = make([]netConf, maxLen+1)
	w.ec = make([]grammar.Config, maxLen+1)
	w.tc = make([]grammar.Config, maxLen+1)
	for n := 0; n <= maxLen; n++ {
		w.cmp.Agreements = append(w.cmp.Agreements, Agreement{Length: n})
	}
	w.net[0] = netConf{active: []int{0}, popped: -1}
	w.ec[0] = grammar.Config{State: ext.Start}
	if target != nil {
		w.tc[0] = grammar.Config{State: target.Start}
	}
	w.visit(0, maxLen)
	return w.cmp
}

func (w *walker) visit(d, maxLen int) {
	nc := &w.net[d]
	w.run.SetConfig(nc.active, nc.stack, nc.popped)
	w.run.Step(w.L)
	net := w.run.Prediction() > 0.5
	ext := w.ext.Accepting(w.ec[d])
	a := &w.cmp.Agreements[d]
	a.Strings++
	if net != ext {
		a.NetworkDisagree++
		w.cmp.NetworkCounter = keep(w.cmp.NetworkCounter, Counterexample{w.ext.Decode(w.syms[:d]), ext, net})
	}
	if w.tgt != nil {
		if tgt := w.tgt.Accepting(w.tc[d]); tgt != ext {
			a.TargetDisagree++
			w.cmp.TargetCounter = keep(w.cmp.TargetCounter, Counterexample{w.ext.Decode(w.syms[:d]), ext, tgt})
		}
	}
	if d == maxLen {
		return
	}
	for l := 0; l < w.L; l++ {
		w.run.SetConfig(nc.active, nc.stack, nc.popped)
		w.run.Step(l)
		next := &w.net[d+1]
		next.active = append(next.active[:0], w.run.Active()...)
		next.stack = append(next.stack[:0], w.run.Stack.Symbols()...)
		next.popped = w.run.Stack.Popped()
		stepPDA(w.ext, &w.ec[d+1], w.ec[d], l)
		if w.tgt != nil {
			stepPDA(w.tgt, &w.tc[d+1], w.tc[d], l)
		}
		w.syms[d] = l
		w.visit(d+1, maxLen)
	}
}

// stepPDA sets *dst to src after symbol l, reusing dst's stack memory.
func stepPDA(p *grammar.PDA, dst *grammar.Config, src grammar.Config, l int) {
	dst.State, dst.Dead = src.State, src.Dead
	dst.Stack = append(dst.Stack[:0], src.Stack...)
	p.Step(dst, l)
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
	if c := cmp.Compare(len([]rune(a)), len([]rune(b))); c != 0 {
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
