package tables

import (
	"context"
	"fmt"
	"strings"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/nn"
)

// Grammars of the paper's tables, in the paper's column order: the four
// languages of Tables 1–3 and the appendix, then Dyck-2 (Table 4 only).
var (
	tableGrammars = []string{"palindrome", "anbn", "anbncbmam", "anmbncm"}
	allGrammars   = append(append([]string(nil), tableGrammars...), "dyck2")
)

// RegNoise is the noise regularizer's level, in percent of matrices, of every
// higher-order run the paper calls regularized (the paper's useful range is
// 8–30%; "All higher-order RNNs made use of our proposed adaptive noise
// regularizer").
const RegNoise = 15

// GridOptions select the size of a table's grid.
type GridOptions struct {
	Seeds int  // runs per cell, Config.Seed = 1..Seeds (at least 1)
	Quick bool // small budgets: see Quick
	// KeepBest: every run ends with its best-validation weights
	// (Config.KeepBest) rather than its last, as Algorithm 1 does.
	KeepBest bool
}

// Quick budgets: a smoke test of the whole pipeline, not a measurement.
const (
	QuickEpochs  = 3   // MaxEpochs
	QuickStrings = 100 // training positives, and negatives
)

// Table is one of the paper's tables: rows × columns of cells, each cell a
// set of runs (one per seed) reduced to one metric, with the paper's number.
type Table struct {
	Name    string // command-line name: hints, incremental, ...
	Title   string // the paper's table and what it measures
	About   string // how the grid reproduces it, one paragraph
	Rows    []string
	Columns []Column
	Cells   [][]Cell // [row][column]
	Budgets string   // the runs' budgets and final weights, when they are not the paper's (Provenance.Budgets)
	Options GridOptions
	// source makes the table's results now (nil: the store's finished
	// runs, StoreSource). A table with a source of its own trains nothing:
	// the programmed table's networks are compiled and evaluated in memory.
	source func(ctx context.Context, t *Table, workers int) (reportSource, error)
	// figures are the table's figures, in order (nil: defaultFigures).
	figures []tableFigure
	// Search is the first phase of a table built in two (fair): runs whose
	// results choose the runs of cells not yet known (those still to finish;
	// see Resolve). Configs lists them first.
	Search  []experiment.Config
	resolve func(Source) (*Table, error) // builds the cells from the search's results (nil: a one-phase table)
}

// Column is one column of a table: a grammar and a variant of it (order,
// train or test set).
type Column struct {
	Label   string // header, e.g. "anbn M1"
	Grammar string
	Series  string // added to the row label to name a curve ("M1"), or "" when the column does not change the runs
}

// Cell is the runs of one table cell and what is read from them.
type Cell struct {
	Configs []experiment.Config // one per seed; nil: not reproducible with this code (Note says why)
	Metric  Metric
	Paper   string // the paper's number as printed ("NA", ">200000", "0.06"), "" if none
	Note    string
}

// Names lists the tables `nspda repro` knows, in the paper's order.
func Names() []string {
	return []string{"hints", "incremental", "noise", "comparison", "programmed", "algorithms", "learning", "fair"}
}

// Grid returns the named table with its runs.
func Grid(name string, opt GridOptions) (*Table, error) {
	if opt.Seeds < 1 {
		return nil, fmt.Errorf("seeds must be at least 1, not %d", opt.Seeds)
	}
	build := map[string]func(GridOptions) *Table{
		"hints": hintsTable, "incremental": incrementalTable, "noise": noiseTable,
		"comparison": comparisonTable, "programmed": programmedTable, "algorithms": algorithmsTable,
		"learning": learningTable, "fair": fairTable,
	}[name]
	if build == nil {
		return nil, fmt.Errorf("unknown table %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	t := build(opt)
	t.Options = opt
	return t, nil
}

// Configs returns the distinct runs of the table's search (if it has one)
// and of its cells, row by row, in first-use order. A table with a source
// of its own (programmed) has none.
func (t *Table) Configs() []experiment.Config {
	if t.source != nil {
		return nil
	}
	var out []experiment.Config
	seen := make(map[string]bool)
	for _, cfg := range t.Search {
		if k := cfg.Key(); !seen[k] {
			seen[k] = true
			out = append(out, cfg)
		}
	}
	for _, row := range t.Cells {
		for _, c := range row {
			for _, cfg := range c.Configs {
				if k := cfg.Key(); !seen[k] {
					seen[k] = true
					out = append(out, cfg)
				}
			}
		}
	}
	return out
}

// NewPlan lists the distinct configurations of the tables, in order, each
// under the first table that asks for it.
func NewPlan(ts ...*Table) experiment.Plan {
	var p experiment.Plan
	for _, t := range ts {
		p = p.Add(t.Name, t.Configs())
	}
	return p
}

// base is Defaults() — the project's reading of the paper's setup (Sec. 5):
// SGD from 0.1005000321, clipping at 13, at most 500 epochs, the two-stage
// curriculum, Hint #2 — for one model on one grammar, with the noise
// regularizer for higher-order models, hints for the NSPDA only, the
// model's estimator named explicitly (so that equal runs of different
// tables share one key), and the options' budgets.
func base(opt GridOptions, name, grammar string, order int) experiment.Config {
	c := experiment.Defaults().WithModel(name) // the options name has: the key stays honest
	c.Grammar = grammar
	spec, _ := model.Lookup(name)
	setIf(&c, "order", order)
	if spec.HigherOrder {
		c.Noise = RegNoise
	}
	c.Algo = c.Algorithm()
	c.KeepBest = opt.KeepBest
	opt.budget(&c)
	return c
}

// budget applies the options' budgets to c: with Quick, QuickEpochs
// epochs, QuickStrings training strings of each label and test60 only.
func (opt GridOptions) budget(c *experiment.Config) {
	if opt.Quick {
		c.MaxEpochs = QuickEpochs
		c.Positives, c.Negatives = QuickStrings, QuickStrings
		c.Edits = min(c.Edits, QuickStrings)
		c.Tests = []string{"test60"}
	}
}

// seeds returns one copy of c per seed, Seed = 1..n.
func seeds(c experiment.Config, n int) []experiment.Config {
	out := make([]experiment.Config, n)
	for i := range out {
		out[i] = c
		out[i].Seed = uint64(i + 1)
	}
	return out
}

// orderColumns returns grammar × {2nd, 3rd order} columns, labelled with
// the paper's names for the orders (W1/W2 or M1/M2).
func orderColumns(grammars []string, w1, w2 string) []Column {
	var cols []Column
	for _, g := range grammars {
		cols = append(cols, Column{Label: g + " " + w1, Grammar: g, Series: w1}, Column{Label: g + " " + w2, Grammar: g, Series: w2})
	}
	return cols
}

// columnOrder is the tensor order of an orderColumns column.
func columnOrder(i int) int { return 2 + i%2 }

// orderRow is a row of an orderTable: the base config of model, changed by
// edit if set.
type orderRow struct {
	label string
	model string
	edit  func(c *experiment.Config)
}

// nspdaRow is the orderRow of the NSPDA changed by edit.
func nspdaRow(label string, edit func(c *experiment.Config)) orderRow {
	return orderRow{label, "nspda", edit}
}

// orderTable sets t's rows to rows and its columns to tableGrammars × {w1,
// w2} (orderColumns), fills its cells and returns it; paper holds the
// paper's row values in column order.
func orderTable(t *Table, opt GridOptions, w1, w2 string, metric Metric, paper map[string][]string, rows ...orderRow) *Table {
	t.Columns = orderColumns(tableGrammars, w1, w2)
	t.Rows, t.Cells = nil, make([][]Cell, len(rows))
	for r, row := range rows {
		t.Rows = append(t.Rows, row.label)
		for ci, col := range t.Columns {
			cfg := base(opt, row.model, col.Grammar, columnOrder(ci))
			if row.edit != nil {
				row.edit(&cfg)
			}
			t.Cells[r] = append(t.Cells[r], Cell{Configs: seeds(cfg, opt.Seeds), Metric: metric, Paper: paperAt(paper, row.label, ci)})
		}
	}
	return t
}

func hintsTable(opt GridOptions) *Table {
	hints := func(label string, h int) orderRow {
		return nspdaRow(label, func(c *experiment.Config) { setOpts(c, "hints", h) })
	}
	return orderTable(&Table{
		Name:  "hints",
		Title: "Table 1: epochs to converge without and with hints (W1 = 2nd order, W2 = 3rd order)",
		About: "NSPDA trained without hints, with Hint #1 and with Hint #2; the NNPDA (model nnpda) without and with the " +
			"dead-state hint of Das, Giles and Sun (--dead-hint). " +
			"All runs use the two-stage curriculum and the noise regularizer at " + fmt.Sprint(RegNoise) + "%.",
	}, opt, "W1", "W2", Metric{Kind: Epochs}, paperHints,
		orderRow{"NNPDA w/o hints", "nnpda", nil},
		orderRow{"NNPDA w/ dead neuron hints", "nnpda", func(c *experiment.Config) { setOpts(c, "dead_hint", true) }},
		hints("NSPDA w/o hints", 0), hints("NSPDA w/ Hint #1", 1), hints("NSPDA w/ Hint #2", 2))
}

func incrementalTable(opt GridOptions) *Table {
	curriculum := func(label, name string) orderRow {
		return nspdaRow(label, func(c *experiment.Config) {
			setOpts(c, "hints", 0)
			c.Curriculum = name
		})
	}
	return orderTable(&Table{
		Name:  "incremental",
		Title: "Table 2: characters to converge by curriculum (NSPDA without hints; M1 = 2nd order, M2 = 3rd order)",
		About: "NSPDA without hints trained with no curriculum (standard), the one-stage length curriculum (IL) and the two-stage one (2-IL); " +
			"noise regularizer at " + fmt.Sprint(RegNoise) + "%. Characters are input symbols presented until training accuracy first reaches 100%.",
	}, opt, "M1", "M2", Metric{Kind: Chars}, paperIncremental,
		curriculum("Standard", "standard"), curriculum("IL", "il"), curriculum("2-IL", "2il"))
}

func noiseTable(opt GridOptions) *Table {
	noise := func(label string, n float64) orderRow {
		return nspdaRow(label, func(c *experiment.Config) { c.Noise = n })
	}
	return orderTable(&Table{
		Name:  "noise",
		Title: "Table 3: % error on test60 (lengths 22–60) without and with the adaptive noise regularizer (M1 = 2nd order, M2 = 3rd order)",
		About: fmt.Sprintf("NSPDA with Hint #2 and the two-stage curriculum, noise regularizer off (0%%) or on (%d%% of matrices).", RegNoise),
	}, opt, "M1", "M2", Metric{Kind: TestError, Set: "test60"}, paperNoise,
		noise("w/o reg", 0), noise("w reg", RegNoise))
}

func algorithmsTable(opt GridOptions) *Table {
	algo := func(label, a string) orderRow {
		return nspdaRow(label, func(c *experiment.Config) { c.Algo = a })
	}
	return orderTable(&Table{
		Name:  "algorithms",
		Title: "Appendix: % error on test60 (lengths 22–60) of the NSPDA by learning algorithm (M1 = 2nd order, M2 = 3rd order)",
		About: fmt.Sprintf("NSPDA with Hint #2, the two-stage curriculum and the noise regularizer at %d%%, trained with BPTT, truncated BPTT (window 50), RTRL or UORO.", RegNoise),
	}, opt, "M1", "M2", Metric{Kind: TestError, Set: "test60"}, paperAlgorithms,
		algo("BPTT", "bptt"), algo("TBPTT", "tbptt"), algo("RTRL", "rtrl"), algo("UORO", "uoro"))
}

// comparisonRow is one model setting of Table 4.
type comparisonRow struct {
	label    string
	model    string
	order    int
	noise    float64
	rounding bool
	annealed bool // Config.Stage2Annealed
}

// comparisonRows returns the paper's rows of Table 4 and its appendix
// version, in its order, then any registered model the paper does not have.
func comparisonRows() []comparisonRow {
	rows := []comparisonRow{
		{label: "RNN (elman)", model: "elman"},
		{label: "LSTM (lstm)", model: "lstm"},
		{label: "LSTM-p (lstm-peephole)", model: "lstm-peephole"},
		{label: "GRU (gru)", model: "gru"},
		{label: "Stack RNN 40+10 (stack-rnn)", model: "stack-rnn"},
		{label: "Stack RNN 40+10 + rounding", model: "stack-rnn", rounding: true},
		{label: "listRNN 40+5 (list-rnn)", model: "list-rnn"},
		{label: "MI-RNN (mi-rnn, appendix)", model: "mi-rnn"},
		{label: "MI-LSTM (mi-lstm, appendix)", model: "mi-lstm"},
		{label: "MI-GRU (mi-gru, appendix)", model: "mi-gru"},
		{label: "2nd order RNN (second-order)", model: "second-order"},
		{label: "2nd order RNN reg", model: "second-order", noise: RegNoise},
		{label: "NNPDA (nnpda)", model: "nnpda", order: 3},
		{label: "NNPDA reg", model: "nnpda", order: 3, noise: RegNoise},
		{label: "NSPDA M1", model: "nspda", order: 2, noise: RegNoise},
		{label: "NSPDA M2", model: "nspda", order: 3, noise: RegNoise},
		// Not the paper's: 2-IL's second stage at the rate stage 1's
		// annealing reached rather than back at the initial rate (design.md
		// section 5, "Learning rate").
		{label: "NSPDA M1, annealed stage 2 (ours)", model: "nspda", order: 2, noise: RegNoise, annealed: true},
		{label: "NSPDA M2, annealed stage 2 (ours)", model: "nspda", order: 3, noise: RegNoise, annealed: true},
	}
	known := make(map[string]bool)
	for _, r := range rows {
		known[r.model] = true
	}
	for _, name := range model.Names() {
		if !known[name] {
			rows = append(rows, comparisonRow{label: name, model: name, order: 3, noise: -1})
		}
	}
	return rows
}

func comparisonTable(opt GridOptions) *Table {
	t := &Table{
		Name:  "comparison",
		Title: "Table 4 and its appendix version: % error on the training set and on test60 (lengths 22–60), every model on every language",
		About: fmt.Sprintf("Every registered model with its default size (stack RNN 40 units + 10 stacks, list RNN 40 + 5 lists) and default estimator "+
			"(see nspda models), the two-stage curriculum; \"reg\" rows and the NSPDAs use the noise regularizer at %d%%, "+
			"the NSPDAs Hint #2; \"+ rounding\" evaluates the stack RNN with hard actions; the rows marked \"(ours)\" are not the paper's: "+
			"2-IL's second stage keeps the learning rate stage 1's annealing reached instead of returning to the initial rate.", RegNoise),
	}
	for _, g := range allGrammars {
		t.Columns = append(t.Columns, Column{Label: g + " train", Grammar: g}, Column{Label: g + " test60", Grammar: g})
	}
	for _, row := range comparisonRows() {
		t.Rows = append(t.Rows, row.label)
		var cells []Cell
		for ci, col := range t.Columns {
			c := base(opt, row.model, col.Grammar, row.order)
			if row.noise >= 0 {
				c.Noise = row.noise
			}
			if row.rounding {
				setOpts(&c, "rounding", true)
			}
			c.Stage2Annealed = row.annealed
			m := Metric{Kind: TrainError}
			if ci%2 == 1 {
				m = Metric{Kind: TestError, Set: "test60"}
			}
			cells = append(cells, Cell{Configs: seeds(c, opt.Seeds), Metric: m, Paper: paperAt(paperComparison, row.label, ci)})
		}
		t.Cells = append(t.Cells, cells)
	}
	return t
}

// programmedSets are the test sets of the programmed table; --quick keeps
// them all (evaluating a programmed network is fast).
var programmedSets = []string{"test60", "test480", "test960"}

func programmedTable(opt GridOptions) *Table {
	t := &Table{
		Name:  "programmed",
		Title: "Appendix: % error of programmed NSPDAs (rule insertion, no training) at lengths up to 60, 480 and 960",
		About: "program.Compile of each language's PDA into a 2nd- or 3rd-order NSPDA with the default strength H, " +
			"evaluated on the test sets generated with test seeds 1..seeds (so seeds vary the strings, not the network).",
		Rows:    []string{"2nd order NSPDA", "3rd order NSPDA"},
		source:  newProgrammedSource,
		figures: []tableFigure{barsFig, lengthsFig}, // nothing trained: no learning curves
	}
	for _, g := range allGrammars {
		for _, set := range programmedSets {
			n := strings.TrimPrefix(set, "test")
			t.Columns = append(t.Columns, Column{Label: g + " n=" + n, Grammar: g, Series: ""})
		}
	}
	for r, label := range t.Rows {
		var cells []Cell
		for ci, col := range t.Columns {
			set := programmedSets[ci%len(programmedSets)]
			c := experiment.Config{Grammar: col.Grammar, Tests: []string{set}, Refine: 1}.WithModel("nspda")
			setOpts(&c, "order", 2+r, "hints", 0, "hint_h", 0)
			cfgs := make([]experiment.Config, opt.Seeds)
			for i := range cfgs {
				cfgs[i] = c
				cfgs[i].Seed, cfgs[i].TestSeed = uint64(i+1), uint64(i+1)
			}
			cells = append(cells, Cell{Configs: cfgs, Metric: Metric{Kind: TestError, Set: set}, Paper: paperAt(paperProgrammed, label, ci)})
		}
		t.Cells = append(t.Cells, cells)
	}
	return t
}

// learningRecipe is a row of the learning table.
type learningRecipe struct {
	label string
	// recipe is the experiment.Recipe the row trains (learningBase); ""
	// is the comparison table's NSPDA row (base), whose stored runs serve.
	recipe string
	// edit, if set, changes the recipe's configuration.
	edit func(c *experiment.Config)
	// thirdOnly: the row has no second-order line, whose runs would be
	// another row's (why).
	thirdOnly string
}

// config is the row's configuration for one grammar and order.
func (r learningRecipe) config(opt GridOptions, grammar string, order int) experiment.Config {
	if r.recipe == "" {
		c := base(opt, "nspda", grammar, order)
		if r.edit != nil {
			r.edit(&c)
		}
		return c
	}
	if r.edit == nil {
		return learningBase(opt, r.recipe, grammar, order)
	}
	return learningBase(opt, r.recipe, grammar, order, r.edit)
}

// longStarts is the default's start schedule before it took the probes:
// nine long starts and no short ones, at most 400 epochs, selection on
// 22–40, J by the wide rule. Rows measured before then keep it, and so
// their stored runs.
func longStarts(edit func(c *experiment.Config)) func(c *experiment.Config) {
	return noProbes(preNeutral(func(c *experiment.Config) {
		c.SelectMax, c.Size = 0, "wide"
		if edit != nil {
			edit(c)
		}
	}))
}

// preFinalWeight is the default recipe before probe 46 (docs/training.md):
// the final starts weigh the neutral prior as the other starts do. Rows
// measured before it keep it, and so their stored runs.
func preFinalWeight(edit func(c *experiment.Config)) func(c *experiment.Config) {
	return func(c *experiment.Config) {
		c.FinalNeutralWeight = 0
		if edit != nil {
			edit(c)
		}
	}
}

// preFinal is the default recipe before probe 44 (docs/training.md): no
// final starts (preFinalWeight). Rows measured before it keep it, and so
// their stored runs.
func preFinal(edit func(c *experiment.Config)) func(c *experiment.Config) {
	return preFinalWeight(func(c *experiment.Config) {
		c.FinalStarts = 0
		if edit != nil {
			edit(c)
		}
	})
}

// prePolish is the default recipe before probe 42 (docs/training.md): no
// polishing start, and no final starts (preFinal). Rows measured before it
// keep it, and so their stored runs.
func prePolish(edit func(c *experiment.Config)) func(c *experiment.Config) {
	return preFinal(func(c *experiment.Config) {
		c.Polish = 0
		if edit != nil {
			edit(c)
		}
	})
}

// preEdits is the default recipe before probe 41 (docs/training.md): no
// one-edit neighbours in the training and select sets, and only the
// paper's test sets, and no polish (prePolish). Rows measured before it
// keep it, and so their stored runs.
func preEdits(edit func(c *experiment.Config)) func(c *experiment.Config) {
	return prePolish(func(c *experiment.Config) {
		c.Edits, c.Tests = 0, experiment.Defaults().Tests
		if edit != nil {
			edit(c)
		}
	})
}

// preNeutral is the default recipe before probe 40 (docs/training.md):
// no neutral-symbol starts (and no two-sided derivative in them), and no
// edits (preEdits). Rows measured before it keep it, and so their stored
// runs.
func preNeutral(edit func(c *experiment.Config)) func(c *experiment.Config) {
	return preEdits(func(c *experiment.Config) {
		c.NeutralWeight, c.NeutralPatience, c.NeutralTwoSided = 0, 0, false
		if edit != nil {
			edit(c)
		}
	})
}

// noProbes is a start schedule without the probes: the nine long starts
// alone, at most 400 epochs a size; the default's before probe 18
// (longStarts), the data recipe's before probe 38 (docs/training.md) and
// the fair grid's. Rows and grids measured with it keep it, and so their
// stored runs.
func noProbes(edit func(c *experiment.Config)) func(c *experiment.Config) {
	return func(c *experiment.Config) {
		c.Probes, c.ProbePatience, c.MaxEpochs = 0, 0, 400
		if edit != nil {
			edit(c)
		}
	}
}

// learningRecipes are the rows of the learning table: what each recipe
// knows of the automaton, as its row label says.
var learningRecipes = []learningRecipe{
	// The comparison table's NSPDA rows: their stored runs serve here.
	{"paper", "", func(c *experiment.Config) { c.Noise = RegNoise }, ""},
	{"default (PDA targets)", "default", nil, ""},
	// The default before its final starts leaned harder on the neutral
	// prior (docs/training.md, probe 46), with its stored runs.
	{"default before probe 46", "default", preFinalWeight(nil), ""},
	// The default before its final starts (docs/training.md, probe 44),
	// with its stored runs.
	{"default before probe 44", "default", preFinal(nil), ""},
	// The default before its polishing start (docs/training.md, probe
	// 42), with its stored runs.
	{"default before probe 42", "default", prePolish(nil), ""},
	// The default before it took one-edit neighbours of members into its
	// training and select sets (docs/training.md, probe 41), with its
	// stored runs.
	{"default before probe 41", "default", preEdits(nil), ""},
	// The default before its neutral-symbol starts and two-sided read
	// derivative (docs/training.md, probe 40), with its stored runs; the
	// default rows below are older still, and have neither.
	{"default before probe 40", "default", preNeutral(nil), ""},
	// The default before it selected on lengths up to 100 and took 200
	// probes (docs/training.md, probe 20).
	// The default before it tried the paper's size first (probe 22).
	// At second order its runs are the default's before it drew the small
	// size first there (probe 23).
	{"default, the wide size rule", "default", preNeutral(func(c *experiment.Config) { c.Size = "wide" }), ""},
	{"default, select ≤ 40, 100 probes", "default", preNeutral(func(c *experiment.Config) {
		c.Probes, c.ProbePatience, c.MaxEpochs, c.SelectMax, c.Size = 100, 3, 1000, 0, "wide"
	}), ""},
	// The default before it took the probes.
	{"default, 9 long starts (no probes)", "default", longStarts(nil), ""},
	// Many short starts (docs/training.md, probe 15): measured beside the
	// default, not made it.
	{"default, 41 short starts (patience 5)", "default", longStarts(func(c *experiment.Config) {
		c.Patience, c.Restarts = 5, 40
	}), ""},
	// The default recipe before it drew J by the wide rule.
	{"default, the paper's size rule", "default", longStarts(func(c *experiment.Config) { c.Size = "" }),
		"the \"default, 9 long starts\" M1 runs: at second order the paper's size rule is the wide one"},
	// Long starts that end on their own stall, not on the best of all
	// starts (docs/training.md, probe 32): measured beside the default.
	{"default, own patience", "default", preNeutral(func(c *experiment.Config) { c.OwnPatience = true }), ""},
	{"data-only", "data", nil, ""},
	// The data recipe before it took the default's probes
	// (docs/training.md, probe 38), with its stored runs; the rows below
	// have no probes either.
	{"data-only, no probes", "data", noProbes(nil), ""},
	// The data recipe before it selected on lengths up to 200
	// (docs/training.md, probe 36), with its stored runs; the rows
	// below are older still, and selected on 22–40 too.
	{"data-only, select ≤ 40", "data", noProbes(func(c *experiment.Config) { c.SelectMax = 0 }), ""},
	// The data recipe before it took the default's size rule, the small
	// size first (training.md, probe 24), with its stored runs.
	{"data-only, the wide size rule", "data", noProbes(func(c *experiment.Config) { c.Size, c.SelectMax = "wide", 0 }), ""},
	// The data recipe before it alternated stacks (and drew J by the wide
	// rule): its stored runs keep their keys.
	{"data-only, digital stack only", "data", noProbes(func(c *experiment.Config) {
		setOpts(c, "soft_stack", false, "soft_alternate", false)
		c.Size, c.SelectMax = "", 0
	}), ""},
	{"default + action loss", "default", longStarts(func(c *experiment.Config) { c.ActionWeight = 1 }), ""},
	{"default + action loss, 41 short starts (patience 5)", "default", longStarts(func(c *experiment.Config) {
		c.ActionWeight, c.Patience, c.Restarts = 1, 5, 40
	}), ""},
	// The action recipe: the action row with M + U(2,6) state neurons at
	// both orders (its third-order runs are the row's before the default
	// took the wide size rule).
	{"action recipe", "action", nil, ""},
}

// learningBase is a recipe for one grammar and order, changed by mods, with
// the estimator named and the options' budgets.
func learningBase(opt GridOptions, recipe, grammar string, order int, mods ...func(*experiment.Config)) experiment.Config {
	c, _ := experiment.Recipe(recipe)
	c.Grammar = grammar
	setOpts(&c, "order", order)
	for _, m := range mods {
		m(&c)
	}
	c.Algo = c.Algorithm()
	opt.budget(&c)
	return c.Normalize()
}

func learningTable(opt GridOptions) *Table {
	t := &Table{
		Name:  "learning",
		Title: "What makes the NSPDA learn: each recipe on every language (M1 = 2nd order, M2 = 3rd order)",
		Budgets: "the paper rows: the paper's budgets (at most 500 epochs), each run's weights of its last epoch (Algorithm 1); " +
			"the other rows: at most 400 epochs (the default rows and data-only: 1500 for each size; \"default, select ≤ 40, 100 probes\": 1000), each run's weights selected on the training and select sets (--patience)",
		About: "paper: the comparison table's NSPDA rows (Hint #2, 2-IL, SGD, the copied label of eq. 6, noise regularizer at " +
			fmt.Sprint(RegNoise) + "%). default: nspda train's default recipe (no hints; per-step viability and next-symbol-set targets " +
			"from the PDA; Adam 0.01, batch 16, norm clip 5; standard curriculum; selection on lengths 22–100 with patience 20 and " +
			"up to 8 restarts, then up to 200 short starts of patience 3, at most 1500 epochs; J = M + U(2,6) at both orders (the paper's third-order rule), and only if no start passes selection the whole schedule again with J = M + U(12,29) (--size both); " +
			"the long starts other than 0, L+1, … each pull one input symbol in turn towards the no-op, with a patience of 50 epochs of their own and the read's two-sided derivative (--neutral-weight 1 --neutral-patience 50 --neutral-two-sided); " +
			"500 members and 500 strings one symbol inserted into or deleted from a member, of lengths 1–21, beside the training set, and 200 + 200 of lengths 22–100 beside the select set (--edits 500); when no start ends perfect, one more start from the best weights by SGD (--polish 50; at the wide size also when its 1500 epochs end first), and if that fails at the wide size, up to 12 final long starts, each holding a symbol at the no-op in turn with the prior weighted 3 (--final-starts 12 --final-neutral-weight 3); its runs also report edit60 and edit960, not shown here (docs/results.md)). " +
			"\"default before probe 46\": the default with the final starts' prior weighted 1, as the other starts' (no run of the default reaches them, so these runs are byte for byte the default's but for their wall seconds: the default's were measured beside up to three other runs on the two cores, about twice as slow). " +
			"\"default before probe 44\": the default without the final starts (no run of the default reaches them, so these runs are byte for byte the default's but for their wall seconds; all default rows below lack them too). " +
			"\"default before probe 42\": the default without the polish (no run of the default reaches it, so these runs are byte for byte the default's but for their wall seconds; all default rows below lack it too). " +
			"\"default before probe 41\": the default without the edits (all default rows below lack them too). " +
			"\"default before probe 40\": the default without the edits and the neutral-symbol starts (all default rows below lack them too). " +
			"\"default, the wide size rule\": the default before it tried the small size first (J = M + U(12,29) at both orders; at second order the default until it drew the small size first there too). " +
			"\"default, select ≤ 40, 100 probes\": the default before it selected on lengths up to 100 (selection on 22–40, up to 100 short starts, at most 1000 epochs). " +
			"\"default, 9 long starts (no probes)\": the default before it took the short starts (selection on 22–40, at most 400 epochs); the other default rows keep that schedule. data-only: --recipe data, only what the strings tell (the paper's per-step copied label and the language-model " +
			"head; no PDA targets, no hints), the starts alternating between the digital and the superposition stack, J as the default's (--size both), selection on lengths 22–200 (--select-max 200), " +
			"the default's start schedule (up to 200 short starts after the long ones, at most 1500 epochs a size). " +
			"\"data-only, no probes\": the data recipe before it took the probes (the nine long starts alone, at most 400 epochs; the data rows below have no probes either). " +
			"\"data-only, select ≤ 40\": the data recipe before it selected on lengths up to 200 (the rows below select on 22–40 too). " +
			"\"data-only, the wide size rule\": the data recipe before it took the default's size rule (J = M + U(12,29)). default + action loss: the default with the PDA's stack operations as targets of " +
			"the action neurons (prior knowledge of the automaton). action recipe: --recipe action, the same with J = M + U(2,6) at both orders (--size small; the paper's rule at third order). " +
			"\"41 short starts (patience 5)\": --patience 5 --restarts 40 instead of 20 and 8. " +
			"\"default, own patience\": the default with --own-patience (a long start ends after 20 epochs without a better score of its own, not of every start so far). " +
			"The rows \"default, the paper's size rule\" and \"data-only, digital stack only\" are those recipes before they took the wide size rule and (data) the alternating stacks, kept with their stored runs. Epochs are to the first epoch with every training string right.",
	}
	var metrics []Metric
	for _, g := range allGrammars {
		for _, m := range []Metric{{Kind: Epochs}, {Kind: TestError, Set: "test60"}, {Kind: TestError, Set: "test480"}, {Kind: TestError, Set: "test960"}, {Kind: Seconds}} {
			label := g + " " + strings.TrimSuffix(strings.TrimSuffix(m.Name(), " % error"), " to converge")
			t.Columns = append(t.Columns, Column{Label: label, Grammar: g})
			metrics = append(metrics, m)
		}
	}
	for _, r := range learningRecipes {
		for _, order := range []int{2, 3} {
			if order == 2 && r.thirdOnly != "" {
				continue // the same runs as another row's
			}
			t.Rows = append(t.Rows, fmt.Sprintf("%s M%d", r.label, order-1))
			var cells []Cell
			for ci, col := range t.Columns {
				m := metrics[ci]
				if opt.Quick && m.Kind == TestError && m.Set != "test60" {
					cells = append(cells, Cell{Metric: m, Note: "not evaluated with --quick"})
					continue
				}
				cells = append(cells, Cell{Configs: seeds(r.config(opt, col.Grammar, order), opt.Seeds), Metric: m})
			}
			t.Cells = append(t.Cells, cells)
		}
	}
	return t
}

// setOpts sets the model options key, value, ... of c; the grids set only
// options their models have (a panic says otherwise).
func setOpts(c *experiment.Config, kv ...any) {
	for i := 0; i+1 < len(kv); i += 2 {
		if err := c.Set(kv[i].(string), kv[i+1]); err != nil {
			panic(err)
		}
	}
}

// setIf sets the model option key of c to value if c's model has it.
func setIf(c *experiment.Config, key string, value any) {
	if nn.HasOption(model.Options(c.Model), key) {
		setOpts(c, key, value)
	}
}
