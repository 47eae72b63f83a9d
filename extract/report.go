package extract

import (
	"fmt"
	"time"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
)

// Report is extraction's JSON report: what was explored, the automaton's
// size before and after minimization, and its agreement with the network
// and the target per length and per test set. When extraction fails, OK is
// false, Message says why, and only the exploration's counts are filled in.
type Report struct {
	OK               bool        `json:"ok"`
	Message          string      `json:"message,omitempty"`
	Order            int         `json:"order"`
	J                int         `json:"J"`
	Alphabet         string      `json:"alphabet"`
	Refine           int         `json:"refine"`
	Explored         int         `json:"explored_states"` // (state vector, popped) pairs reached
	Pairs            int         `json:"reached_pairs"`   // (state, top) pairs reached
	Live             int         `json:"live_states"`     // before minimization
	States           int         `json:"states"`          // after minimization
	AcceptEmptyStack bool        `json:"accept_empty_stack"`
	Acceptance       string      `json:"acceptance,omitempty"` // "state", "state and empty stack" or "state and top"
	Grammar          string      `json:"grammar,omitempty"`
	ReferenceStates  int         `json:"reference_states,omitempty"` // the target PDA's
	MaxLen           int         `json:"max_len"`
	Comparison       *Comparison `json:"comparison,omitempty"`
	ExtractSeconds   float64     `json:"extract_seconds"`
	CompareSeconds   float64     `json:"compare_seconds"`
}

// CheckOptions say what Check compares the extracted PDA on.
type CheckOptions struct {
	Options
	MaxLen int               // every string up to this length
	Target *grammar.Language // nil: compare with the network only
	Sets   []string          // dataset splits of Target (seed TestSeed)
	Seed   uint64            // the splits' seed (default 1)
}

// Check extracts the network's PDA and compares it with the network and
// the target. The Result's PDA is nil when extraction failed.
func Check(m *nspda.Model, opt CheckOptions) (*Result, *Report, error) {
	t0 := time.Now()
	r := Extract(m, opt.Options)
	rep := &Report{
		Order: int(m.Order), J: m.J, Alphabet: string(m.Alphabet), Refine: r.Refine,
		Explored: r.Explored, Pairs: r.Pairs, Live: r.Live, MaxLen: opt.MaxLen,
		ExtractSeconds: time.Since(t0).Seconds(),
	}
	var target *grammar.PDA
	if opt.Target != nil {
		// The walk steps the target with the network's symbol indices; the
		// same symbols in another order are the same language.
		var err error
		if target, err = opt.Target.PDA.Reordered(m.Alphabet); err != nil {
			return nil, nil, fmt.Errorf("grammar %s: %v", opt.Target.Name, err)
		}
		rep.Grammar = opt.Target.Name
		rep.ReferenceStates = target.M()
	}
	if r.PDA == nil {
		rep.Message = r.Message
		return r, rep, nil
	}
	rep.OK, rep.States, rep.AcceptEmptyStack = true, r.PDA.M(), r.PDA.EmptyStack
	rep.Acceptance = r.Acceptance.String()
	t1 := time.Now()
	rep.Comparison = Exhaustive(m, r.Refine, r.PDA, target, opt.MaxLen)
	for _, name := range opt.Sets {
		set, err := dataset.GenerateSplit(opt.Target, name, max(1, opt.Seed))
		if err != nil {
			return nil, nil, err
		}
		ls := make([]Labelled, len(set))
		for i, e := range set {
			ls[i] = Labelled{e.String, e.Label == dataset.Positive}
		}
		if err := rep.Comparison.Set(name, m, r.Refine, r.PDA, ls); err != nil {
			return nil, nil, err
		}
	}
	rep.CompareSeconds = time.Since(t1).Seconds()
	if n := rep.Comparison.NetworkCounter; len(n) > 0 {
		rep.OK = false
		rep.Message = fmt.Sprintf("the extracted PDA disagrees with the network on %q (a bug in extraction)", n[0].String)
	}
	return r, rep, nil
}

// TargetAgrees reports whether the comparison found no string on which the
// extracted PDA and the target differ.
func (c *Comparison) TargetAgrees() bool { return len(c.TargetCounter) == 0 }
