package main

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/extract"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/internal/atomicfile"
	"github.com/nspda/nspda/model/nspda"
)

// inferReport is infer's JSON report (--report) and the source of its
// table: the run, the extraction, each data file's errors by the network
// and by the PDA, and which of the two was kept and why.
type inferReport struct {
	Data         string          `json:"data"`
	RunDir       string          `json:"run_dir"`
	Model        string          `json:"model"`         // the network's model.json
	PDAFile      string          `json:"pda,omitempty"` // --out, when a PDA was written
	Order        int             `json:"order"`
	Seed         uint64          `json:"seed"`
	J            int             `json:"J"`
	Converged    bool            `json:"converged"`
	Epochs       int             `json:"epochs"`
	TrainSeconds float64         `json:"train_seconds"`
	Extraction   *extract.Report `json:"extraction"`
	ChosenOn     string          `json:"chosen_on"` // the set network and PDA were compared on
	Kept         string          `json:"kept"`      // "pda" or "network"
	Reason       string          `json:"reason"`
	Sets         []inferSet      `json:"sets"`
	NearMisses   *nearMisses     `json:"near_misses,omitempty"` // nil when no PDA was extracted
	pda          *grammar.PDA
}

// inferSet is one data file (or the held-out strings) scored by the network
// and the PDA.
type inferSet struct {
	Name          string         `json:"name"`
	Role          string         `json:"role"` // train, held-out, valid, select or test
	Strings       int            `json:"strings"`
	MinLen        int            `json:"min_len"`
	MaxLen        int            `json:"max_len"`
	Network       score          `json:"network"`
	PDA           *score         `json:"pda,omitempty"`          // nil when no PDA was extracted
	Differ        int            `json:"network_pda_differ"`     // strings on which the two disagree
	Disagreements []disagreement `json:"shortest_disagreements"` // label, network and PDA not all the same
}

type score struct {
	Errors   int     `json:"errors"`
	ErrorPct float64 `json:"error_pct"`
}

// disagreement is a string on which the label, the network and the PDA do
// not all agree.
type disagreement struct {
	String  string `json:"string"`
	Label   int    `json:"label"`
	Network bool   `json:"network_accepts"`
	PDA     *bool  `json:"pda_accepts,omitempty"`
}

// keepDisagreements is how many of the shortest disagreements a set keeps.
const keepDisagreements = 5

// inferFrom extracts the PDA of the network the run in dir trained, writes
// it to out, scores network and PDA on cfg's data files and chooses between
// them.
func inferFrom(cfg experiment.Config, sum *experiment.Summary, dir, out string) (*inferReport, error) {
	rep := &inferReport{
		Data: cfg.Data, RunDir: dir, Model: filepath.Join(dir, experiment.ModelFile),
		Seed: cfg.Seed, J: sum.J, Converged: sum.Converged, Epochs: sum.Epochs, TrainSeconds: sum.WallSeconds,
	}
	net, refine, err := loadNSPDA(rep.Model)
	if err != nil {
		return nil, err
	}
	rep.Order = int(net.Order)
	opt := extract.CheckOptions{MaxLen: defaultMaxLen(net.L)}
	opt.Refine, opt.MaxStates = refine, extract.DefaultMaxStates
	opt.Name = specName(out)
	res, xrep, err := extract.Check(net, opt)
	if err != nil {
		return nil, err
	}
	rep.Extraction = xrep
	if res.PDA != nil && xrep.OK {
		rep.pda = res.PDA
		comment := fmt.Sprintf("inferred by nspda infer from %q (order %d, J=%d, K=%d; run %q)", cfg.Data, xrep.Order, xrep.J, xrep.Refine, dir)
		spec, err := extract.Spec(res.PDA, comment)
		if err != nil {
			return nil, err
		}
		if err := atomicfile.WriteFile(out, spec); err != nil {
			return nil, err
		}
		rep.PDAFile = out
	}
	if err := rep.score(cfg, net, refine); err != nil {
		return nil, err
	}
	rep.choose()
	return rep, nil
}

// namedSet is a data set to score.
type namedSet struct {
	name, role string
	ex         []dataset.Example
}

// dataSets are the sets infer scores: the training file whole, the strings
// held out of it for selection (without --select), and the other files.
func dataSets(cfg experiment.Config) ([]namedSet, error) {
	var sets []namedSet
	add := func(path, role string) error {
		if path == "" {
			return nil
		}
		ex, err := dataset.ReadFile(path)
		if err == nil {
			sets = append(sets, namedSet{filepath.Base(path), role, ex})
		}
		return err
	}
	if err := add(cfg.Data, "train"); err != nil {
		return nil, err
	}
	if cfg.SelectData == "" {
		name, ex, err := experiment.SelectionSet(cfg)
		if err != nil {
			return nil, err
		}
		if name != "" {
			sets = append(sets, namedSet{name, "held-out", ex})
		}
	}
	if err := add(cfg.ValidData, "valid"); err != nil {
		return nil, err
	}
	if err := add(cfg.SelectData, "select"); err != nil {
		return nil, err
	}
	for _, t := range cfg.TestData {
		if err := add(t, "test"); err != nil {
			return nil, err
		}
	}
	return sets, nil
}

// score fills in the sets' errors by the network and, if there is one, the
// PDA.
func (rep *inferReport) score(cfg experiment.Config, net *nspda.Model, refine int) error {
	sets, err := dataSets(cfg)
	if err != nil {
		return err
	}
	alpha, err := alphabetPDA(net.Alphabet)
	if err != nil {
		return err
	}
	run := net.NewRunner()
	run.Refine = max(1, refine)
	if rep.pda != nil {
		if rep.NearMisses, err = findNearMisses(sets, net.Alphabet, rep.pda); err != nil {
			return err
		}
	}
	for _, s := range sets {
		is := inferSet{Name: s.name, Role: s.role, Strings: len(s.ex), Disagreements: []disagreement{}}
		if rep.pda != nil {
			is.PDA = &score{}
		}
		for i, e := range s.ex {
			syms, err := alpha.Encode(e.String)
			if err != nil {
				return fmt.Errorf("%s:%d: %v", s.name, i+1, err)
			}
			is.add(e, syms, run, rep.pda)
		}
		is.Network.ErrorPct = pct(is.Network.Errors, is.Strings)
		if is.PDA != nil {
			is.PDA.ErrorPct = pct(is.PDA.Errors, is.Strings)
		}
		rep.Sets = append(rep.Sets, is)
	}
	return nil
}

// add scores one labelled string.
func (is *inferSet) add(e dataset.Example, syms []int, run *nspda.Runner, p *grammar.PDA) {
	n := utf8.RuneCountInString(e.String)
	if is.MinLen == 0 && is.MaxLen == 0 || n < is.MinLen {
		is.MinLen = n
	}
	is.MaxLen = max(is.MaxLen, n)
	member := e.Label == dataset.Positive
	net, _ := run.Classify(syms)
	d := disagreement{String: e.String, Label: e.Label, Network: net}
	odd := net != member
	if net != member {
		is.Network.Errors++
	}
	if p != nil {
		ext := p.Run(syms)
		d.PDA = &ext
		if ext != member {
			is.PDA.Errors++
		}
		if ext != net {
			is.Differ++
		}
		odd = odd || ext != member
	}
	if odd {
		is.Disagreements = keepShortest(is.Disagreements, d)
	}
}

// keepShortest adds d to the list of the shortest disagreements (shortest
// first, then in string order; each string once).
func keepShortest(list []disagreement, d disagreement) []disagreement {
	i, found := slices.BinarySearchFunc(list, d, func(a, b disagreement) int { return shorterFirst(a.String, b.String) })
	if found || i >= keepDisagreements {
		return list
	}
	list = slices.Insert(list, i, d)
	return list[:min(len(list), keepDisagreements)]
}

// shorterFirst orders strings by length in symbols, then as strings: the
// order in which infer lists the strings it reports.
func shorterFirst(a, b string) int {
	return cmp.Or(cmp.Compare(utf8.RuneCountInString(a), utf8.RuneCountInString(b)), strings.Compare(a, b))
}

func pct(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// choose keeps the network or the PDA: the one with fewer errors on the
// selection strings (the select file, else the held-out ones; the training
// file when there are neither). A tie goes to the PDA: it is the network's
// language written as an automaton, checked against the network on every
// string up to the extraction's length, and it is what program, eval and
// generate read.
func (rep *inferReport) choose() {
	on := -1
	for i, s := range rep.Sets {
		if s.Role == "select" || s.Role == "held-out" {
			on = i
		}
	}
	if on < 0 {
		on = 0
	}
	s := rep.Sets[on]
	rep.ChosenOn = s.Name
	if rep.pda == nil {
		rep.Kept = "network"
		rep.Reason = "no PDA was extracted: " + rep.Extraction.Message
		return
	}
	net, ext := s.Network.Errors, s.PDA.Errors
	switch {
	case ext < net:
		rep.Kept = "pda"
		rep.Reason = fmt.Sprintf("on %s (%d strings) the PDA errs on %d, the network on %d", s.Name, s.Strings, ext, net)
	case ext == net:
		rep.Kept = "pda"
		rep.Reason = fmt.Sprintf("on %s (%d strings) both err on %d; a tie goes to the PDA, which agrees with the network on every string up to length %d", s.Name, s.Strings, net, rep.Extraction.MaxLen)
	default:
		rep.Kept = "network"
		rep.Reason = fmt.Sprintf("on %s (%d strings) the network errs on %d, the PDA on %d", s.Name, s.Strings, net, ext)
	}
}

// write prints the table and the choice, and writes the JSON report to
// path (if given).
func (rep *inferReport) write(w io.Writer, path string) error {
	if x := rep.Extraction; rep.pda != nil {
		fmt.Fprintf(w, "extracted %d states (acceptance by %s; agrees with the network on every string up to length %d) -> %s\n",
			x.States, x.Acceptance, x.MaxLen, rep.PDAFile)
	}
	rep.table(w)
	if rep.NearMisses != nil {
		rep.NearMisses.write(w)
	}
	switch {
	case rep.pda == nil:
		// The reason is infer's error, which follows on stderr.
		fmt.Fprintf(w, "kept: the network, %s (no PDA was extracted)\n", rep.Model)
	case rep.Kept == "pda":
		fmt.Fprintf(w, "kept: the PDA, %s: %s\n", rep.PDAFile, rep.Reason)
	default:
		fmt.Fprintf(w, "kept: the network, %s: it is better than the PDA: %s. %s is the extracted PDA all the same\n", rep.Model, rep.Reason, rep.PDAFile)
	}
	if path == "" {
		return nil
	}
	if err := atomicfile.WriteJSON(path, rep); err != nil {
		return err
	}
	fmt.Fprintf(w, "report -> %s\n", path)
	return nil
}

// table prints each set's errors and then the shortest disagreements.
func (rep *inferReport) table(w io.Writer) {
	width := len("set")
	for _, s := range rep.Sets {
		width = max(width, utf8.RuneCountInString(s.Name))
	}
	fmt.Fprintf(w, "%-*s %8s %9s %14s %8s %10s %8s\n", width, "set", "strings", "lengths", "network errors", "error %", "PDA errors", "error %")
	for _, s := range rep.Sets {
		pe, pp := "-", "-"
		if s.PDA != nil {
			pe, pp = fmt.Sprint(s.PDA.Errors), fmt.Sprintf("%.2f", s.PDA.ErrorPct)
		}
		fmt.Fprintf(w, "%-*s %8d %9s %14d %8.2f %10s %8s\n", width, s.Name, s.Strings, fmt.Sprintf("%d-%d", s.MinLen, s.MaxLen), s.Network.Errors, s.Network.ErrorPct, pe, pp)
	}
	header := false
	for _, s := range rep.Sets {
		for _, d := range s.Disagreements {
			if !header {
				fmt.Fprintf(w, "shortest disagreements:\n  %-*s %-24s %5s %8s %8s\n", width, "set", "string", "label", "network", "PDA")
				header = true
			}
			pda := "-"
			if d.PDA != nil {
				pda = verdict(*d.PDA)
			}
			fmt.Fprintf(w, "  %-*s %-24s %5d %8s %8s\n", width, s.Name, experiment.QuoteShort(d.String), d.Label, verdict(d.Network), pda)
		}
	}
}
