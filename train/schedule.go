package train

import (
	"fmt"
	"iter"
)

// StartKind is the part of a run's plan a start belongs to.
type StartKind int

const (
	// LongStart: start 0 and the Restarts after it.
	LongStart StartKind = iota
	// ProbeStart: the Probes short starts after the long ones.
	ProbeStart
	// PolishStart: the best weights so far, polished (Settings.Polish).
	PolishStart
	// FinalStart: the Final long starts after the polish.
	FinalStart
	// FinishStart: a portfolio start's finish (Settings.Finish), which
	// keeps the start's number; never in Settings.Starts.
	FinishStart
)

// Start is one start of a run: where its weights come from, how it trains
// and when it ends. Settings.Starts lists a run's starts in order.
type Start struct {
	Kind StartKind
	// Index is the start's number r: Env.Init(r) draws its initial weights
	// (start 0 keeps the net's own). The polish keeps the number of the
	// start before it.
	Index int
	// Patience ends the start after that many epochs without a better
	// score: of its own with Own, else of every start so far.
	Patience int
	Own      bool
	// Neutral is the symbol the neutral-symbol prior holds at the no-op
	// (Objective.SetNeutral); −1: none.
	Neutral int
	// TwoSided trains with the read's two-sided derivative (TwoSider).
	TwoSided bool
	// FinalPrior weighs the neutral prior by FinalNeutralWeight
	// (Objective.SetFinal).
	FinalPrior bool
	// Soft trains on the superposition stack (Sharpener, with
	// Settings.SoftStackBeta0); off, on the digital one.
	Soft bool
	// FromBest begins the start from the best weights so far, with the
	// heads' weights 0, instead of from Env.Init(Index).
	FromBest bool
	// SGD steps by SGD at the schedule's stochastic rate, its epochs
	// counted from the start's first, whatever Settings.Optimizer and the
	// curriculum's phase.
	SGD bool
	// Rate, when positive, is Adam's rate on this start instead of the
	// schedule's LR0 (a finish's, Finish.Rate).
	Rate float64
	// Beta, when positive, is the superposition stack's sharpness on this
	// start, constant, instead of the growing one of SoftStackBeta0 (a
	// finish's, Finish.Beta).
	Beta float64
	// Epochs, when positive, ends the start after that many epochs of its
	// own: the polish (FromBest) in every run, a start from new weights in
	// a portfolio only (Settings.StartEpochs, Settings.ProbeEpochs).
	Epochs int
}

// schedule is a run's plan of starts, its boundaries computed once from
// the settings: the long starts are 0…lastLong, the probes
// lastLong+1…lastProbe, the polish follows start lastProbe, and the final
// starts are lastProbe+1…lastFinal. Without Patience there is one start.
type schedule struct {
	set                            Settings
	lastLong, lastProbe, lastFinal int
}

func newSchedule(set Settings) schedule {
	last := set.Restarts + set.Probes
	return schedule{set: set, lastLong: set.Restarts, lastProbe: last, lastFinal: last + max(0, set.Final)}
}

// Starts yields the run's starts in the order they can run: the long ones,
// the probes, the polish, the final starts. A run takes the next only
// while its best weights are not perfect, and MaxEpochs can end the long
// starts and probes early (Settings.Final).
func (set Settings) Starts() iter.Seq[Start] {
	sc := newSchedule(set)
	return func(yield func(Start) bool) {
		for s, ok := sc.start(0), true; ok && yield(s); s, ok = sc.after(s) {
		}
	}
}

// after is the start that follows s in the plan (false: s is the last).
func (sc schedule) after(s Start) (Start, bool) {
	switch {
	case sc.set.Patience <= 0:
	case sc.set.Polish > 0 && s.Index == sc.lastProbe && s.Kind < PolishStart:
		return sc.polishStart(s.Index), true
	case s.Index < sc.lastFinal:
		return sc.start(s.Index + 1), true
	}
	return Start{}, false
}

// start is start r, of the phase its number falls in (not the polish).
func (sc schedule) start(r int) Start {
	switch {
	case sc.set.Final > 0 && r > sc.lastProbe:
		return sc.final(r)
	case sc.set.Probes > 0 && r > sc.lastLong && r <= sc.lastProbe:
		return sc.probe(r)
	}
	return sc.long(r)
}

// current is the start a checkpoint is in (or ended last).
func (sc schedule) current(cp *Checkpoint) Start {
	if cp.PolishFrom > 0 && cp.FinalFrom == 0 {
		return sc.polishStart(cp.Restart)
	}
	return sc.start(cp.Restart)
}

// long is long start r: patience Patience, the neutral symbol
// NeutralSymbol(r, NeutralSymbols) with a patience of its own
// (NeutralPatience, if set).
func (sc schedule) long(r int) Start {
	set := sc.set
	s := sc.fresh(LongStart, r, set.Patience, sc.neutral(r))
	s.Own, s.Epochs = set.OwnPatience, set.StartEpochs
	if set.NeutralPatience > 0 && s.Neutral >= 0 {
		s.Patience, s.Own = set.NeutralPatience, true
	}
	return s
}

// probe is probe r: patience ProbePatience, at most ProbeEpochs epochs of
// its own (0: no bound); no neutral symbol.
func (sc schedule) probe(r int) Start {
	s := sc.fresh(ProbeStart, r, sc.set.ProbePatience, -1)
	s.Epochs = sc.set.ProbeEpochs
	return s
}

// polishStart is the polish after start r: from the best weights, by SGD,
// patience Polish, at most 2·Polish epochs (MaxEpochs if fewer), on the
// digital stack with no neutral symbol.
func (sc schedule) polishStart(r int) Start {
	return Start{Kind: PolishStart, Index: r, Patience: sc.set.Polish, Neutral: -1,
		FromBest: true, SGD: true, Epochs: min(2*sc.set.Polish, sc.set.MaxEpochs)}
}

// final is final start r, the k-th (from 1): it holds symbol
// NeutralSymbol(k, NeutralSymbols) with the final prior's weight, and its
// patience (NeutralPatience, else Patience) is of its own.
func (sc schedule) final(r int) Start {
	set := sc.set
	s := sc.fresh(FinalStart, r, set.Patience, sc.neutral(r-sc.lastProbe))
	s.Own, s.FinalPrior, s.Epochs = true, true, set.StartEpochs
	if set.NeutralPatience > 0 {
		s.Patience = set.NeutralPatience
	}
	return s
}

// neutral is the symbol NeutralSymbol(i, NeutralSymbols), −1 (none)
// without NeutralSymbols.
func (sc schedule) neutral(i int) int {
	if sc.set.NeutralSymbols <= 0 {
		return -1
	}
	return NeutralSymbol(i, sc.set.NeutralSymbols)
}

// fresh is start r of kind k from new weights, with patience p and
// neutral symbol sym (−1: none): on the stack of SoftStackAlternate,
// two-sided with NeutralTwoSided and a symbol.
func (sc schedule) fresh(k StartKind, r, p, sym int) Start {
	set := sc.set
	return Start{Kind: k, Index: r, Patience: p, Neutral: sym,
		TwoSided: set.NeutralTwoSided && sym >= 0,
		Soft:     !set.SoftStackAlternate || r%2 == 1}
}

// next returns the start the run goes on with (false: the run is over):
// the one in flight; the polish, when the long starts and probes have
// ended with imperfect weights; or, when MaxEpochs ended them so with Final
// starts to take, what follows the last of them, as in a run whose starts
// all ended (the ones not taken are skipped, so the final starts draw the
// weights of starts lastProbe+1…).
func (r *runner) next() (Start, bool, error) {
	cp := &r.st.cp
	s := r.sc.current(cp)
	var err error
	switch {
	case r.cutShort(s):
		cp.Restart = max(cp.Restart, r.sc.lastProbe)
		if n, ok := r.sc.after(r.sc.start(cp.Restart)); ok {
			s, err = n, r.begin(n)
		}
	case cp.Finished && r.imperfect():
		if n, ok := r.sc.after(s); ok && n.FromBest {
			s, err = n, r.begin(n)
		}
	}
	if err != nil || cp.Converged && r.set.Patience == 0 || cp.Finished || r.outOfEpochs(s) {
		return Start{}, false, err
	}
	return s, true, nil
}

// follow begins, when start s ended with imperfect best weights, the start
// after it if that one begins at once, before the checkpoint: a long start
// or probe, or a final start with epochs left (the polish begins in next).
func (r *runner) follow(s Start) error {
	if !r.st.cp.Finished || !r.imperfect() {
		return nil
	}
	n, ok := r.sc.after(s)
	if !ok || n.FromBest || n.Kind == FinalStart && r.outOfEpochs(s) {
		return nil
	}
	return r.begin(n)
}

// begin begins start s: from the best weights with the heads' weights 0
// (FromBest), else from Env.Init(s.Index) and a fresh optimizer; either
// way with a fresh curriculum and the rate's factor and patience count
// reset, the best weights so far kept. The first final start marks
// FinalFrom, the polish PolishFrom.
func (r *runner) begin(s Start) error {
	cp := &r.st.cp
	if s.FromBest {
		copy(r.params, cp.Selection.Params)
		for _, h := range r.env.Obj.Heads() {
			clear(h.Params)
		}
		cp.PolishFrom = cp.Epoch + 1
		return r.st.begin(r.set, r.fresh)
	}
	if s.Kind == FinalStart && cp.FinalFrom == 0 {
		cp.FinalFrom = cp.Epoch + 1
	}
	cp.Restart = s.Index
	if r.env.Init == nil {
		return fmt.Errorf("restarts need an initializer")
	}
	if err := r.env.Init(s.Index); err != nil {
		return err
	}
	if err := r.st.begin(r.set, r.fresh); err != nil {
		return err
	}
	if cp.Adam != nil {
		cp.Adam.Reset()
	}
	return nil
}

// ended reports whether start s, an epoch of it just run, has ended: its
// selection finished it, its epochs ran out, or without Patience the run
// converged.
func (r *runner) ended(s Start) bool {
	cp := &r.st.cp
	return cp.Converged && r.set.Patience == 0 || cp.Finished || r.outOfEpochs(s)
}

// outOfEpochs reports whether the run, in start s, has used its epochs:
// MaxEpochs, not counting the polish's; in the final starts, MaxEpochs of
// their own.
func (r *runner) outOfEpochs(s Start) bool {
	cp := &r.st.cp
	switch s.Kind {
	case FinalStart:
		return cp.Epoch-cp.FinalFrom+1 >= r.set.MaxEpochs
	case PolishStart:
		return false
	}
	return cp.Epoch >= r.set.MaxEpochs
}

// cutShort reports whether MaxEpochs has ended the long starts and probes,
// s among them, with imperfect best weights while the run has Final starts
// to take.
func (r *runner) cutShort(s Start) bool {
	return r.set.Final > 0 && s.Kind < PolishStart && r.st.cp.Epoch >= r.set.MaxEpochs && r.imperfect()
}

// imperfect reports whether the run has selected weights, and they are not
// perfect.
func (r *runner) imperfect() bool {
	sel := r.st.cp.Selection
	return sel != nil && sel.Params != nil && sel.Errors > 0
}
