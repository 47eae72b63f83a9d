package tables

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/extract"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/model/nspda"
)

// inferenceBuiltins are the built-in languages of the inference table.
var inferenceBuiltins = []string{"anbn", "dyck2", "anmbncm", "anbncbmam", "palindrome"}

// inferenceFiles are the table's PDA files, languages no built-in covers.
// A file's path, relative to the repository's root (where repro runs), is
// part of its runs' keys; each run keeps a copy of the file
// (experiment.GrammarFile), which the table reads.
var inferenceFiles = []string{"tables/languages/eqab.yaml", "tables/languages/anb2n.yaml"}

// InferenceMaxLen is the length up to which the inference table compares
// each extracted PDA with its language on every string: the length
// `nspda infer` and `nspda extract` check up to by default. Over the
// table's alphabets (at most four symbols: 1.4 million strings) it takes
// a few seconds a run.
const InferenceMaxLen = 10

// InferenceExactPct is the test960 error at or below which a network
// counts as exact to 960 in the inference table.
const InferenceExactPct = 1.0

// inferenceMetrics are the columns of the inference table's long form.
var inferenceMetrics = []Metric{{Kind: TestError, Set: "test60"}, {Kind: TestError, Set: "test960"}, {Kind: Seconds}}

// dataOnlyRow is the learning table's data-only row, whose runs are the
// inference table's on the built-in languages, key for key.
func dataOnlyRow() learningRow {
	for _, r := range learningRows() {
		if r.Label == "data-only" {
			return r
		}
	}
	panic("learning.json: no row \"data-only\"")
}

// inferenceLanguages are the table's languages: the built-ins, then the
// PDA files (not with --quick, a smoke test that must run from any
// directory: the files' paths are relative to the repository's root).
func inferenceLanguages(opt GridOptions) []string {
	if opt.Quick {
		return inferenceBuiltins
	}
	return slices.Concat(inferenceBuiltins, inferenceFiles)
}

// languageLabel names a language in the table: a built-in by its name, a
// PDA file by its file name.
func languageLabel(g string) string {
	if _, ok := grammar.Builtin(g); ok {
		return g
	}
	return strings.TrimSuffix(filepath.Base(g), filepath.Ext(g)) + " (PDA file)"
}

func inferenceTable(opt GridOptions) *Table {
	t := &Table{
		Name:  "inference",
		Title: "Grammatical inference: data-only runs, and the PDAs extracted from their networks, on every language (M1 = 2nd order, M2 = 3rd order)",
		About: "Learning from labelled strings alone: the learning table's data-only runs (`--recipe data`: no PDA targets, no hints) " +
			"on the five built-in languages, and the same recipe on languages given as PDA files (" + strings.Join(inferenceFiles, ", ") +
			"), whose PDA serves only to label the strings. From each stored network the PDA is extracted as `nspda infer` and " +
			"`nspda extract` do (extract.Check, the model's refinement, at most " + fmt.Sprint(extract.DefaultMaxStates) + " control states) and compared " +
			"with the language on every string up to length " + fmt.Sprint(InferenceMaxLen) + " and on the run's test sets. " +
			"The paper has no numbers for these rows.",
		Budgets: "each run's weights selected on the training and select sets (--patience), at most 1500 epochs a size (the data recipe)",
		figures: []tableFigure{}, // the at-a-glance counts are the result; the learning table draws these runs
		glance:  inferenceGlance,
	}
	for _, m := range inferenceMetrics {
		t.Columns = append(t.Columns, Column{Label: m.Name()})
	}
	row := dataOnlyRow()
	for _, g := range inferenceLanguages(opt) {
		for _, order := range row.orders() {
			t.Rows = append(t.Rows, fmt.Sprintf("%s M%d", languageLabel(g), order-1))
			cols := make([]Column, len(t.Columns))
			for i := range cols {
				cols[i] = Column{Label: t.Columns[i].Label, Grammar: g}
			}
			t.Cells = append(t.Cells, row.cells(opt, cols, inferenceMetrics, order, "learning.json"))
		}
	}
	t.Legend = []string{row.legend()}
	if !opt.Quick {
		t.About += " Every run was trained to its end, one or two at a time on the 2 cores."
	}
	return t
}

// runCheck is one finished run of the inference table: its network's
// error and the PDA extracted from it, compared with the language.
type runCheck struct {
	Key        string
	Seed       uint64
	Exact      bool    // the network's error on the exactness set is at most InferenceExactPct
	ErrorPct   float64 // on the exactness set (test960; test60 with --quick)
	Seconds    float64 // the run's wall seconds
	NoModel    bool    // the store has the run's summary but not its model.json
	Extracted  bool    // a PDA was extracted (Message says why not)
	Message    string
	States     int
	Acceptance string
	// Equivalent: the PDA and the language agree on every string up to
	// InferenceMaxLen and on every test set compared.
	Equivalent bool
	// NonEmpty: they agree on every string compared but perhaps the
	// empty one, which no training, select or test set holds.
	NonEmpty  bool
	Explored  int            // control states explored
	Counter   string         // the shortest string on which they differ
	SetDiffer map[string]int // strings of each test set on which they differ
}

// inferenceSets are the test sets an extracted PDA is compared on.
func inferenceSets(opt GridOptions) []string {
	if opt.Quick {
		return []string{"test60"}
	}
	return []string{"test60", "test960"}
}

// checkRun extracts the PDA of cfg's finished run (summary sum) from its
// model.json in s and compares it with the run's language; a missing
// model.json is a runCheck with NoModel, not an error.
func checkRun(s experiment.Store, cfg experiment.Config, sum *experiment.Summary, sets []string) (runCheck, error) {
	exactSet := sets[len(sets)-1]
	c := runCheck{Key: cfg.Key(), Seed: cfg.Seed, Seconds: sum.WallSeconds, ErrorPct: math.NaN()}
	if v, ok := (Metric{Kind: TestError, Set: exactSet}).Value(sum); ok {
		c.ErrorPct, c.Exact = v, v <= InferenceExactPct
	}
	dir := s.RunDir(c.Key)
	m, refine, err := model.Load(filepath.Join(dir, experiment.ModelFile))
	if errors.Is(err, fs.ErrNotExist) {
		c.NoModel = true
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("run %s: %v", c.Key, err)
	}
	w, ok := m.(nspda.Weighted)
	if !ok {
		return c, fmt.Errorf("run %s: a %s model, not an NSPDA", c.Key, cfg.Model)
	}
	lang, err := experiment.StoredLanguage(cfg, dir)
	if err != nil {
		return c, fmt.Errorf("run %s: %v", c.Key, err)
	}
	opt := extract.CheckOptions{MaxLen: InferenceMaxLen, Target: lang, Sets: sets, Seed: cfg.TestSeed}
	opt.Refine, opt.MaxStates = refine, extract.DefaultMaxStates
	res, rep, err := extract.Check(w.Weights(), opt)
	if err != nil {
		return c, fmt.Errorf("run %s: %v", c.Key, err)
	}
	c.Explored = rep.Explored
	if res.PDA == nil || !rep.OK {
		c.Message = rep.Message
		return c, nil
	}
	c.Extracted, c.States, c.Acceptance = true, rep.States, rep.Acceptance
	c.Equivalent = rep.Comparison.TargetAgrees()
	if ce := rep.Comparison.TargetCounter; len(ce) > 0 {
		c.Counter = ce[0].String
	}
	c.SetDiffer = map[string]int{}
	c.NonEmpty = true
	for _, a := range rep.Comparison.Agreements {
		if a.Name != "" {
			c.SetDiffer[a.Name] = a.TargetDisagree
		}
		if a.TargetDisagree > 0 && (a.Name != "" || a.Length > 0) {
			c.NonEmpty = false
		}
	}
	return c, nil
}

// inferenceLine is a row's runs: those finished, checked, in seed order.
type inferenceLine struct {
	runs   int
	checks []runCheck
}

// checkRows checks every finished run of t, workers at a time.
func checkRows(ctx context.Context, t *Table, s experiment.Store, res [][]CellResult, workers int) ([]inferenceLine, error) {
	sets := inferenceSets(t.Options)
	lines := make([]inferenceLine, len(t.Rows))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, workers))
	for i := range t.Rows {
		cfgs := t.Cells[i][0].Configs
		lines[i] = inferenceLine{runs: len(cfgs), checks: make([]runCheck, len(cfgs))}
		for j, cfg := range cfgs {
			sum := res[i][0].sums[cfg.Key()]
			if sum == nil {
				continue
			}
			g.Go(func() error {
				if err := ctx.Err(); err != nil {
					return err
				}
				c, err := checkRun(s, cfg, sum, sets)
				lines[i].checks[j] = c
				return err
			})
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for i := range lines { // the runs not finished leave no check
		lines[i].checks = slices.DeleteFunc(lines[i].checks, func(c runCheck) bool { return c.Key == "" })
	}
	return lines, nil
}

// counts are the line's numbers for the at-a-glance table.
func (l inferenceLine) counts() (exact, extracted, equivalent, nonEmpty, noModel int, seconds []float64) {
	for _, c := range l.checks {
		if c.Exact {
			exact++
		}
		if c.Extracted {
			extracted++
		}
		if c.Equivalent {
			equivalent++
		}
		if c.NonEmpty {
			nonEmpty++
		}
		if c.NoModel {
			noModel++
		}
		seconds = append(seconds, c.Seconds)
	}
	return
}

// inferenceGlance writes the inference table at a glance, one line per
// language and order, then every run's check, naming `nspda restore KEY`
// for a run whose model.json the store left out.
func inferenceGlance(ctx context.Context, t *Table, s experiment.Store, res [][]CellResult, workers int) ([]byte, error) {
	lines, err := checkRows(ctx, t, s, res, workers)
	if err != nil {
		return nil, err
	}
	sets := inferenceSets(t.Options)
	exactSet := sets[len(sets)-1]
	var b bytes.Buffer
	fmt.Fprintf(&b, "At a glance, per language and order, of the finished runs (\"(f/n finished)\" when not all n are): the networks exact to %s "+
		"(at most %.0f%% error on %s, from the run's summary); the runs from whose network a PDA was extracted; the extracted PDAs "+
		"equivalent to the language (no difference on any string up to length %d nor on %s), and those equivalent on every non-empty string (all "+
		"but perhaps the empty string, which no training, select or test set holds, so that the data say nothing of it); the median wall seconds of training. "+
		"Wall seconds depend on the machine's load (these runs shared 2 cores with other training jobs): compare them roughly.\n\n",
		strings.TrimPrefix(exactSet, "test"), InferenceExactPct, exactSet, InferenceMaxLen, strings.Join(sets, " and "))
	b.WriteString("| language | order | networks exact | PDAs extracted | PDAs equivalent | equivalent on non-empty strings | median s |\n|---|---|---:|---:|---:|---:|---:|\n")
	var missing []string
	for i, row := range t.Rows {
		l := lines[i]
		name, order, _ := strings.Cut(row, " M")
		order = map[string]string{"1": "2 (M1)", "2": "3 (M2)"}[order]
		if len(l.checks) == 0 {
			fmt.Fprintf(&b, "| %s | %s | – (0/%d finished) | – | – | – | – |\n", name, order, l.runs)
			continue
		}
		exact, extracted, equivalent, nonEmpty, noModel, secs := l.counts()
		n := len(l.checks)
		of := fmt.Sprintf("%d", n)
		if n < l.runs {
			of += fmt.Sprintf(" (%d/%d finished)", n, l.runs)
		}
		ext := fmt.Sprintf("%d/%d", extracted, n)
		if noModel > 0 {
			ext += fmt.Sprintf(" (%d without model.json)", noModel)
		}
		fmt.Fprintf(&b, "| %s | %s | %d/%s | %s | %d/%d | %d/%d | %.0f |\n", name, order, exact, of, ext, equivalent, n, nonEmpty, n, median(secs))
		for _, c := range l.checks {
			if c.NoModel {
				missing = append(missing, c.Key)
			}
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(&b, "\n**%d runs have no model.json in the store**, so no PDA could be extracted from them: `nspda restore %s` "+
			"trains them again and writes their weights.\n", len(missing), strings.Join(missing, " "))
	}
	b.WriteString("\nEvery run: its key, the network's " + exactSet + " % error, the PDA extracted (states, acceptance) and how it compares with the language " +
		"(\"equal\", or the shortest string on which they differ and the strings of each test set on which they do).\n\n")
	b.WriteString("| language, order | seed | run | " + exactSet + " % | PDA | vs the language | s |\n|---|---:|---|---:|---|---|---:|\n")
	for i, row := range t.Rows {
		for _, c := range lines[i].checks {
			fmt.Fprintf(&b, "| %s | %d | `%s` | %s | %s | %s | %.0f |\n", row, c.Seed, c.Key, pctText(c.ErrorPct), c.pdaText(), c.vsText(sets), c.Seconds)
		}
	}
	return b.Bytes(), nil
}

// pctText prints an error percentage, "–" when the set was not evaluated.
func pctText(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.2f", v)
}

// pdaText describes the extracted PDA, or why there is none.
func (c runCheck) pdaText() string {
	switch {
	case c.NoModel:
		return fmt.Sprintf("model.json missing: `nspda restore %s`", c.Key)
	case !c.Extracted && strings.Contains(c.Message, "finite control"):
		return fmt.Sprintf("none: no finite control within extract's bounds (%d control states explored)", c.Explored)
	case !c.Extracted:
		return "none: " + strings.ReplaceAll(c.Message, "|", `\|`)
	}
	return fmt.Sprintf("%d states, by %s", c.States, c.Acceptance)
}

// vsText says how the extracted PDA compares with the language.
func (c runCheck) vsText(sets []string) string {
	switch {
	case !c.Extracted:
		return "–"
	case c.Equivalent:
		return "equal"
	case c.NonEmpty:
		return `equal but on "" (the empty string)`
	}
	var parts []string
	for _, s := range sets {
		parts = append(parts, fmt.Sprintf("%s: %d", s, c.SetDiffer[s]))
	}
	return fmt.Sprintf("differs on %s; %s", experiment.QuoteShort(c.Counter), strings.Join(parts, ", "))
}
