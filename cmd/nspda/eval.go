package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/internal/limits"
	"github.com/nspda/nspda/nn"
)

func newEval() *cobra.Command {
	var (
		mpath, gname, sets, data string
		seed                     uint64
		asJSON, discretize       bool
		refine, workers          int
	)
	cmd := &cobra.Command{
		Use:   "eval --model M (--grammar G [--sets test60,test480,test960] [--seed N] [--data FILE.jsonl] | --data FILE.jsonl) [--workers N] [--json]",
		Short: "Measure a model's errors on test sets",
		Long: `eval classifies the strings of each named test set (generated exactly as
'nspda generate' would, with --seed) and of --data files, and prints per set the
number of strings, errors, error %, false accepts and false rejects. With
--data alone, only the file is evaluated; --grammar is then optional (a model
learned from data has none): without it the file's labels are taken as given,
with it they are checked against the grammar. The grammar's alphabet must be
the model's symbols, no more and no fewer, in any order. An NSPDA classifies
the strings of all sets on --workers goroutines, longest first; the results
do not depend on their number.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var names []string
			if data == "" || cmd.Flags().Changed("sets") {
				var err error
				if names, err = parseSets(sets); err != nil {
					return err
				}
				if gname == "" && data != "" {
					return usagef("--sets are drawn from a grammar: give --grammar, or --data alone")
				}
			}
			if workers < 1 {
				return usagef("--workers must be at least 1")
			}
			if gname == "" && data == "" {
				return usagef("--grammar is required (or --data alone)")
			}
			m, err := loadModel(mpath)
			if err != nil {
				return err
			}
			if err := setEvalModel(cmd, m, refine, discretize); err != nil {
				return err
			}
			alpha, err := modelAlphabet(m)
			if err != nil {
				return err
			}
			todo, err := evalSets(m, alpha, gname, names, seed, data)
			if err != nil {
				return err
			}
			if _, ok := m.Model.(nn.ClassifierMaker); !ok {
				workers = 1 // its classifiers share the model's memory
			}
			results, err := evaluate.RunSets(todo, m.classifier, alpha, workers)
			if err != nil {
				return err
			}
			return printResults(cmd, results, asJSON)
		},
	}
	f := cmd.Flags()
	f.StringVar(&mpath, "model", "", "model file")
	f.StringVar(&gname, "grammar", "", "grammar: a built-in name or a PDA .yaml file")
	f.StringVar(&sets, "sets", "test60,test480,test960", "comma-separated named splits to evaluate (edit60 and edit960: one-edit neighbours of members at any length, not the paper's)")
	f.Uint64Var(&seed, "seed", 1, "seed of the named sets")
	f.StringVar(&data, "data", "", "a JSONL file of labelled strings to evaluate")
	f.BoolVar(&asJSON, "json", false, `print {"sets": [...]} as JSON`)
	f.IntVar(&refine, "refine", 0, "state iterations per symbol (default: the model's own)")
	f.IntVar(&workers, "workers", runtime.GOMAXPROCS(0), "goroutines that classify at once (NSPDA models; other models classify on one)")
	f.BoolVar(&discretize, "discretize", false, "NSPDA: evaluate with ternary weights (the paper's discretization before evaluation)")
	return cmd
}

// setEvalModel applies --refine and --discretize to m.
func setEvalModel(cmd *cobra.Command, m *loaded, refine int, discretize bool) error {
	if cmd.Flags().Changed("refine") {
		if refine < 1 {
			return usagef("--refine must be at least 1")
		}
		if err := limits.Check("--refine", refine, limits.Refine); err != nil {
			return usageError{err}
		}
		m.refine = refine
	}
	if discretize {
		d, ok := m.Model.(nn.Discretizer)
		if !ok {
			return usagef("--discretize applies to NSPDA models, not %s", m.Kind())
		}
		m.Model = d.Discretized()
	}
	return nil
}

// evalSets returns the sets eval classifies: the named splits of the
// grammar gname, then the data file. Without a grammar the data file is
// checked only against the model's alphabet (RunSets encodes it with that);
// with one, its symbols and labels are checked against the grammar, whose
// alphabet must hold the model's symbols, in any order.
func evalSets(m *loaded, alpha *grammar.PDA, gname string, names []string, seed uint64, data string) ([]evaluate.Set, error) {
	var lang *grammar.Language
	if gname != "" {
		var err error
		if lang, err = loadGrammar(gname); err != nil {
			return nil, err
		}
		if err := checkAlphabet(m, lang); err != nil {
			return nil, err
		}
	}
	var todo []evaluate.Set
	for _, name := range names {
		ex, err := dataset.GenerateSplit(lang, name, seed)
		if err != nil {
			return nil, err
		}
		todo = append(todo, evaluate.Set{Name: name, Ex: ex})
	}
	if data != "" {
		ex, err := dataset.ReadFile(data)
		if err != nil {
			return nil, err
		}
		check := func() error { return checkSymbols(data, alpha, ex) }
		if lang != nil {
			check = func() error { return checkData(data, lang, ex) } // the same symbols, and the labels
		}
		if err := check(); err != nil {
			return nil, err
		}
		todo = append(todo, evaluate.Set{Name: data, Ex: ex})
	}
	return todo, nil
}

// parseSets reads a --sets list of named splits: at least one, each a
// known split, each once (a repeated name would evaluate the same strings
// again), so that the sets generated are at most the known splits
// whatever the list's length.
func parseSets(list string) ([]string, error) {
	var names []string
	for _, name := range splitList(list) {
		if slices.Contains(names, name) {
			continue
		}
		if _, err := dataset.DefaultSpec(name); err != nil {
			return nil, usagef("--sets: %v", err)
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return nil, usagef("--sets names no set; give one or more of %s", strings.Join(dataset.Splits(), ", "))
	}
	return names, nil
}

// checkSymbols refuses a data file with a string outside the model's
// alphabet, naming its line (example i is on line i+1).
func checkSymbols(path string, alpha *grammar.PDA, ex []dataset.Example) error {
	for i, e := range ex {
		if _, err := alpha.Encode(e.String); err != nil {
			return fmt.Errorf("%s:%d: string %s: %v", path, i+1, experiment.QuoteShort(e.String), err)
		}
	}
	return nil
}

// checkData refuses a data file with a string outside the grammar's alphabet
// or a label that disagrees with the grammar's exact recognizer, naming the
// first such line: example i of a JSONL file read by dataset.ReadFile is on
// line i+1 (empty lines are errors there).
func checkData(path string, lang *grammar.Language, ex []dataset.Example) error {
	var buf []int
	for i, e := range ex {
		var err error
		if buf, err = lang.PDA.AppendEncode(buf[:0], e.String); err != nil {
			return fmt.Errorf("%s:%d: string %s: %v", path, i+1, experiment.QuoteShort(e.String), err)
		}
		in := lang.Recognize(e.String)
		if in == (e.Label == dataset.Positive) {
			continue
		}
		verdict := "is not in"
		if in {
			verdict = "is in"
		}
		return fmt.Errorf("%s:%d: label %d but %s %s %s", path, i+1, e.Label, experiment.QuoteShort(e.String), verdict, lang.Name)
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func printResults(cmd *cobra.Command, results []evaluate.Result, asJSON bool) error {
	w := cmd.OutOrStdout()
	if asJSON {
		if results == nil {
			results = []evaluate.Result{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Sets []evaluate.Result `json:"sets"`
		}{results})
	}
	width := len("set")
	for _, r := range results {
		width = max(width, len(r.Name))
	}
	width = max(width, 10)
	fmt.Fprintf(w, "%-*s %8s %9s %7s %8s %10s %10s\n", width, "set", "strings", "lengths", "errors", "error %", "false acc", "false rej")
	for _, r := range results {
		fmt.Fprintf(w, "%-*s %8d %9s %7d %8.2f %10d %10d\n", width, r.Name, r.Strings, fmt.Sprintf("%d-%d", r.MinLen, r.MaxLen), r.Errors, r.ErrorPct, r.FalseAccepts, r.FalseRejects)
	}
	return nil
}
