package tables

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/train"
)

// The fair comparison (issue 18, docs/design.md "A fair comparison"): every
// model trained by one recipe, the data recipe's learning options (Adam,
// minibatches, norm clipping, the copied label and the language-model head,
// selection on the select split with patience and restarts, BPTT), with its
// learning rate and hidden size chosen per model and language by a search
// on the training and select sets only.
//
// The table is built in two phases. Phase 1 is the search: FairTrials
// trials per row and language, ordinary runs of the store. Phase 2 is the
// table's cells: five seeds of the setting the search selected, which only
// exist once every trial of their row and language is finished (Resolve).
const (
	FairTrials      = 8      // search trials per row and language
	FairQuickTrials = 2      // with --quick
	FairSearchSeed  = 1      // the stream the trials' settings are drawn from
	FairLRMin       = 3e-4   // the search's learning rates: log-uniform in [FairLRMin, FairLRMax]
	FairLRMax       = 3e-2   //
	fairTrialSeed0  = 100    // trial i trains with Seed fairTrialSeed0+i+1, apart from the seeds 1..5 of phase 2
	fairStream      = 0x5eed // PCG stream of the search draw
)

// FairHidden are the hidden sizes of the search (state neurons J for the
// NSPDA, hidden units for the others); trial i has FairHidden[i mod 3].
var FairHidden = []int{10, 20, 40}

// FairSetting is one trial's searched settings.
type FairSetting struct {
	LR     float64
	Hidden int
}

// FairSettings returns the n trial settings of the search: the same for
// every row and language (each model is offered the same candidates). The
// rate is log-uniform in [FairLRMin, FairLRMax], stratified: the log range
// is cut into n equal strata, each trial draws within its own, and the
// strata are shuffled among the trials, all from the search seed; rates
// keep three significant digits. The hidden size cycles through FairHidden.
func FairSettings(n int) []FairSetting {
	rng := rand.New(rand.NewPCG(FairSearchSeed, fairStream))
	strata := rng.Perm(n)
	out := make([]FairSetting, n)
	lo, hi := math.Log(FairLRMin), math.Log(FairLRMax)
	for i := range out {
		lr := math.Exp(lo + (float64(strata[i])+rng.Float64())/float64(n)*(hi-lo))
		lr, _ = strconv.ParseFloat(strconv.FormatFloat(lr, 'g', 3, 64), 64)
		out[i] = FairSetting{LR: lr, Hidden: FairHidden[i%len(FairHidden)]}
	}
	return out
}

// fairRow is one model setting of the fair table.
type fairRow struct {
	label    string
	model    string
	order    int
	rounding bool
	paper    string // the row of paperComparison printed beside it, "" none
	// dataRecipe rows are the NSPDA as `nspda infer` trains it: the
	// learning table's data-only runs, the data recipe with its own
	// search of starts, not this table's search and budget.
	dataRecipe bool
}

// fairRows returns the rows: every model of Table 4 (the "reg" rows are
// not repeated: the fair recipe has no noise regularizer), the stack and
// list RNNs soft and rounded, the NSPDA at both orders, then any registered
// model the paper does not have.
func fairRows() []fairRow {
	rows := []fairRow{
		{label: "RNN (elman)", model: "elman", paper: "RNN (elman)"},
		{label: "LSTM (lstm)", model: "lstm", paper: "LSTM (lstm)"},
		{label: "LSTM-p (lstm-peephole)", model: "lstm-peephole", paper: "LSTM-p (lstm-peephole)"},
		{label: "GRU (gru)", model: "gru", paper: "GRU (gru)"},
		{label: "Stack RNN (stack-rnn), soft", model: "stack-rnn", paper: "Stack RNN 40+10 (stack-rnn)"},
		{label: "Stack RNN + rounding", model: "stack-rnn", rounding: true, paper: "Stack RNN 40+10 + rounding"},
		{label: "listRNN (list-rnn), soft", model: "list-rnn", paper: "listRNN 40+5 (list-rnn)"},
		{label: "listRNN + rounding", model: "list-rnn", rounding: true},
		{label: "MI-RNN (mi-rnn)", model: "mi-rnn", paper: "MI-RNN (mi-rnn, appendix)"},
		{label: "MI-LSTM (mi-lstm)", model: "mi-lstm", paper: "MI-LSTM (mi-lstm, appendix)"},
		{label: "MI-GRU (mi-gru)", model: "mi-gru", paper: "MI-GRU (mi-gru, appendix)"},
		{label: "2nd order RNN (second-order)", model: "second-order", paper: "2nd order RNN (second-order)"},
		{label: "NNPDA (nnpda)", model: "nnpda", order: 3, paper: "NNPDA (nnpda)"},
		{label: "NSPDA M1, this table's recipe", model: "nspda", order: 2, paper: "NSPDA M1"},
		{label: "NSPDA M2, this table's recipe", model: "nspda", order: 3, paper: "NSPDA M2"},
		{label: "NSPDA M1, data recipe (own search)", model: "nspda", order: 2, dataRecipe: true},
		{label: "NSPDA M2, data recipe (own search)", model: "nspda", order: 3, dataRecipe: true},
	}
	known := make(map[string]bool)
	for _, r := range rows {
		known[r.model] = true
	}
	for _, name := range model.Names() {
		if !known[name] {
			rows = append(rows, fairRow{label: name, model: name, order: 3})
		}
	}
	return rows
}

// fairTests are the test sets of the fair table's phase-2 runs.
var fairTests = []string{"test60", "test480", "test960"}

// FairRecipe is the fair comparison's configuration of one model on one
// grammar: Recipe("data-serial") (the data recipe when this grid was
// built, kept so that its runs keep their keys) with BPTT, selecting on
// lengths 22–40, and
// without what only the NSPDA has (the superposition stack and the size
// rule) for the other models; hints,
// the action loss and the PDA's viable and next-symbol targets are in no
// row. The learning rate and Hidden are the search's to set.
func FairRecipe(modelName, grammar string, order int, rounding bool) experiment.Config {
	c, _ := experiment.Recipe("data-serial")
	c = c.WithModel(modelName) // the options the model has
	c.Grammar = grammar
	setIf(&c, "hints", 0)
	setIf(&c, "hint_h", 0)
	if rounding {
		setOpts(&c, "rounding", true)
	}
	c.Algo = "bptt"
	spec, _ := model.Lookup(modelName)
	setIf(&c, "order", order)
	if spec.Size == nil {
		c.Size = ""
	} else {
		// The search sets J, so the NSPDA's size rule draws nothing;
		// "wide", the data recipe's rule when this grid was built,
		// keeps its keys ("both" would need no Hidden).
		c.Size = "wide"
	}
	// Selection on lengths 22–40, the nine long starts alone (no probes),
	// at most 400 epochs: the data recipe's schedule when this grid's runs
	// were stored, kept so that they keep their keys.
	c.SelectMax = 0
	c.Probes, c.ProbePatience, c.MaxEpochs = 0, 0, 400
	return c.Normalize()
}

// fairConfig is row's configuration on grammar with setting s, with the
// options' budgets: a trial (no test set, a trial seed) or a phase-2 run.
func fairConfig(opt GridOptions, row fairRow, grammar string, s FairSetting) experiment.Config {
	c := FairRecipe(row.model, grammar, row.order, row.rounding)
	c.LR, c.Hidden = s.LR, s.Hidden
	c.Tests = fairTests
	opt.budget(&c)
	return c
}

// fairTrials returns the search trials of row on grammar: no test set is
// evaluated, and each trains with a seed of its own.
func fairTrials(opt GridOptions, row fairRow, grammar string) []experiment.Config {
	n := FairTrials
	if opt.Quick {
		n = FairQuickTrials
	}
	var out []experiment.Config
	for i, s := range FairSettings(n) {
		c := fairConfig(opt, row, grammar, s)
		c.Tests, c.Seed = nil, uint64(fairTrialSeed0+i+1)
		out = append(out, c)
	}
	return out
}

// fairMetrics are the metrics of each language's columns.
var fairMetrics = []Metric{{Kind: TrainError}, {Kind: TestError, Set: "test60"}, {Kind: TestError, Set: "test480"}, {Kind: TestError, Set: "test960"}}

func fairTable(opt GridOptions) *Table {
	trials := FairTrials
	if opt.Quick {
		trials = FairQuickTrials
	}
	t := &Table{
		Name:  "fair",
		Title: "A fair comparison: every model of Table 4 trained by one modern recipe, learning rate and size searched per model and language (% error)",
		Budgets: "at most 400 epochs per run, each run's weights selected on the training and select sets (--patience 20, up to 8 restarts); " +
			"per model and language a search of " + fmt.Sprint(trials) + " trials before the seeds",
		About: "Every model trained by the data-only recipe (nspda train --recipe data): Adam, batch 16, norm clip 5, the standard curriculum, " +
			"BPTT, the paper's per-step copied label plus the language-model head (next symbol of members), selection on the training set and the select split " +
			"(lengths 22–40) with patience 20 and up to 8 restarts, at most 400 epochs; no noise regularizer. " +
			fmt.Sprintf("Search (phase 1): %d trials per row and language, learning rate log-uniform in [%g, %g] (stratified), hidden size %v (state neurons J for the NSPDA), ", trials, FairLRMin, FairLRMax, FairHidden) +
			"the same candidates for every model; the trial with the least training plus select-split error is kept (ties: the earlier trial). " +
			"Trials evaluate no test set. The cells (phase 2) are five fresh seeds of the selected setting. " +
			"Left out for every model: hints and the action loss (NSPDA-only), and the PDA's viable and next-symbol targets (the trainer's, " +
			"usable by any model, but knowledge of the automaton); the NSPDA's searched rows (\"this table's recipe\") alone alternate " +
			"their starts between the digital and the superposition stack (`--recipe data-serial`, the data recipe when this grid was built). " +
			"The rows \"data recipe (own search)\" are not searched and not under this table's budget: they are the NSPDA as `nspda infer` trains it " +
			"(`nspda train --recipe data`, the learning table's data-only runs): its own search of up to 209 starts, bounded, at most 1500 epochs at each of two sizes, " +
			"selection on lengths 22–200, starts alternating between the stacks, and a near fit finished on the superposition stack; their compute is in the runs' compute above. " +
			"\"+ rounding\" rows are the stack and list RNNs " +
			"evaluated (and selected) with hard actions, with their own search. The paper's numbers are its Table 4 (its paper-protocol rows; \"reg\" rows are not repeated here).",
	}
	return fairGrid(t, opt, fairRows(), allGrammars)
}

// fairGrid completes t with rows × grammars (tests use a few).
func fairGrid(t *Table, opt GridOptions, rows []fairRow, grammars []string) *Table {
	for _, g := range grammars {
		for _, m := range fairMetrics {
			label := g + " " + strings.TrimSuffix(m.Name(), " % error")
			t.Columns = append(t.Columns, Column{Label: label, Grammar: g})
		}
	}
	for _, r := range rows {
		t.Rows = append(t.Rows, r.label)
	}
	t.resolve = func(src Source) (*Table, error) { return fairResolve(opt, t, rows, grammars, src) }
	// Before the search has results: no cells to run, every trial to run.
	u, _ := fairResolve(opt, t, rows, grammars, nil)
	return u
}

// FairChoice is the search's result for one row and language.
type FairChoice struct {
	Trial   int // index of the selected trial
	Setting FairSetting
	Score   float64 // its training plus select-split % error
}

// fairSelect picks the best of finished trials: the least training plus
// select-split error, ties to the earlier trial. It reads only the trials'
// summaries and metrics (which hold no test set). ok is false until every
// trial is finished.
func fairSelect(trials []experiment.Config, src Source) (choice FairChoice, finished int, ok bool, err error) {
	choice.Score = math.Inf(1)
	err = eachFinished(src, trials, func(i int, c experiment.Config, sum *experiment.Summary) error {
		finished++
		score, err := trialScore(c, sum, src)
		if err != nil {
			return err
		}
		if score < choice.Score {
			choice = FairChoice{Trial: i, Setting: FairSetting{LR: c.LR, Hidden: c.Hidden}, Score: score}
		}
		return nil
	})
	if err != nil {
		return choice, 0, false, err
	}
	return choice, finished, finished == len(trials), nil
}

// MetricsSource is a Source that also gives a finished run's metrics.
type MetricsSource interface {
	Source
	Metrics(cfg experiment.Config) ([]train.Metrics, error)
}

// Metrics reads the run's metrics.jsonl.
func (s StoreSource) Metrics(cfg experiment.Config) ([]train.Metrics, error) {
	return readMetrics(s.Store.RunDir(cfg.Key()))
}

// trialScore is a finished trial's training error plus its select-split
// error at the epoch whose weights it kept (both in %).
func trialScore(c experiment.Config, sum *experiment.Summary, src Source) (float64, error) {
	ms, ok := src.(MetricsSource)
	if !ok {
		return 0, fmt.Errorf("the fair search needs the runs' metrics")
	}
	metrics, err := ms.Metrics(c)
	if err != nil {
		return 0, err
	}
	for _, m := range metrics {
		if m.Epoch == sum.SelectedEpoch && m.SelectAcc != nil {
			return sum.TrainErrorPct + 100 - *m.SelectAcc, nil
		}
	}
	return 0, fmt.Errorf("run %s: no select-split accuracy at its selected epoch %d", c.Key(), sum.SelectedEpoch)
}

// fairCells are row r's cells of one language (the paper's column gi):
// configs measured by each of fairMetrics.
func fairCells(opt GridOptions, r fairRow, gi int, configs []experiment.Config, note string) []Cell {
	var cells []Cell
	for mi, m := range fairMetrics {
		cell := Cell{Configs: configs, Metric: m, Note: note}
		if r.paper != "" && mi < 2 && gi >= 0 {
			cell.Paper = paperAt(paperComparison, r.paper, 2*gi+mi)
		}
		if opt.Quick && m.Kind == TestError && m.Set != "test60" {
			cell.Configs, cell.Note = nil, "not evaluated with --quick"
		}
		cells = append(cells, cell)
	}
	return cells
}

// fairResolve builds the table's cells from the search's results in src
// (nil: none yet): for each row and language whose trials are all finished,
// five seeds of the selected setting; for the others no runs yet, and their
// trials in Search.
func fairResolve(opt GridOptions, t *Table, rows []fairRow, grammars []string, src Source) (*Table, error) {
	out := *t
	out.Search, out.Cells = nil, nil
	var trials, done int
	var seconds float64
	for _, r := range rows {
		var cells []Cell
		for _, g := range grammars {
			gi := indexOf(allGrammars, g) // the paper's column
			if r.dataRecipe {
				c, err := dataOnlyRow().config(opt, g, r.order)
				if err != nil {
					return nil, err
				}
				cells = append(cells, fairCells(opt, r, gi, seeds(c, opt.Seeds), g+": the data recipe's own starts, no search")...)
				continue
			}
			ts := fairTrials(opt, r, g)
			trials += len(ts)
			var choice FairChoice
			var finished int
			var ok bool
			if src != nil {
				var err error
				if choice, finished, ok, err = fairSelect(ts, src); err != nil {
					return nil, fmt.Errorf("%s on %s: %v", r.label, g, err)
				}
				for _, c := range ts {
					if sum, _ := src.Summary(c); sum != nil {
						seconds += sum.WallSeconds
					}
				}
			}
			done += finished
			var configs []experiment.Config
			note := fmt.Sprintf("%s: search %d/%d trials finished", g, finished, len(ts))
			if ok {
				configs = seeds(fairConfig(opt, r, g, choice.Setting), opt.Seeds)
				note = fmt.Sprintf("%s: selected lr %g, hidden %d (trial %d of %d, train + select error %.2f%%)",
					g, choice.Setting.LR, choice.Setting.Hidden, choice.Trial+1, len(ts), choice.Score)
			} else {
				out.Search = append(out.Search, ts...)
			}
			cells = append(cells, fairCells(opt, r, gi, configs, note)...)
		}
		out.Cells = append(out.Cells, cells)
	}
	out.About = t.About + fmt.Sprintf(" Search: %d of %d trials finished, %.1f hours of compute (not counted in the runs' compute above).", done, trials, seconds/3600)
	return &out, nil
}

// Resolve returns t with the cells that depend on other runs' results (a
// table with a search: fair) built from the finished runs of src; other
// tables are returned as they are.
func Resolve(t *Table, src Source) (*Table, error) {
	if t.resolve == nil {
		return t, nil
	}
	out, err := t.resolve(src)
	if err != nil {
		return nil, err
	}
	out.Options = t.Options
	return out, nil
}

// Pending reports whether a table with a search still has unfinished trials
// (and so cells whose runs are not yet known).
func (t *Table) Pending() bool { return len(t.Search) > 0 }

// Staged reports whether the table is built in two phases (Resolve).
func (t *Table) Staged() bool { return t.resolve != nil }
