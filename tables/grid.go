package tables

import (
	"bytes"
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
	// Glance, if set, makes the at-a-glance table compact: one column per
	// language, its runs exact of n and the mean of this metric (nil: every
	// column, the mean and the paper's number).
	Glance *Metric
	// Legend says what each row is, as a list after the tables.
	Legend []string
	// source makes the table's results now (nil: the store's finished
	// runs, StoreSource). A table with a source of its own trains nothing:
	// the programmed table's networks are compiled and evaluated in memory.
	source func(ctx context.Context, t *Table, workers int) (reportSource, error)
	// figures are the table's figures, in order (nil: defaultFigures).
	figures []tableFigure
	// summary, if set, writes the table at a glance in place of the
	// per-column one (mdGlance): the ablation table's per-row totals.
	summary func(b *bytes.Buffer, t *Table, res [][]CellResult)
	// glance, if set, makes the table at a glance, in place of summary,
	// from more of the store than the runs' summaries (the inference
	// table: the PDAs it extracts from the runs' models).
	glance func(ctx context.Context, t *Table, s experiment.Store, res [][]CellResult, workers int) ([]byte, error)
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
	return []string{"hints", "incremental", "noise", "comparison", "programmed", "algorithms", "learning", "learning-history", "fair", "ablation", "inference"}
}

// DefaultSeeds is the number of seeds a table is made with when none is
// asked for: five, as the paper's tables; three for the ablation, whose
// grid (a run per part left out, language, order and seed) costs as much
// as all the other tables together.
func DefaultSeeds(name string) int {
	if name == "ablation" {
		return 3
	}
	return 5
}

// Grid returns the named table with its runs.
func Grid(name string, opt GridOptions) (*Table, error) {
	if opt.Seeds < 1 {
		return nil, fmt.Errorf("seeds must be at least 1, not %d", opt.Seeds)
	}
	build := map[string]func(GridOptions) *Table{
		"hints": hintsTable, "incremental": incrementalTable, "noise": noiseTable,
		"comparison": comparisonTable, "programmed": programmedTable, "algorithms": algorithmsTable,
		"learning": learningTable, "learning-history": learningHistoryTable, "fair": fairTable,
		"ablation": ablationTable, "inference": inferenceTable,
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
