package tables

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nspda/nspda/experiment"
)

// learningJSON lists the rows of the learning tables as data: each a
// recipe and the settings that make the row's runs (learningRow). An
// earlier version of a recipe stays a row, with the settings that undo
// what the recipe took since, so that its stored runs keep their keys.
//
//go:embed learning.json
var learningJSON []byte

// learningRow is one recipe of the learning tables.
type learningRow struct {
	Label string `json:"label"`
	// Recipe is the experiment.Recipe the row trains; "paper" is the
	// paper tables' NSPDA (base), whose stored runs the comparison table
	// shares.
	Recipe string `json:"recipe"`
	// Set holds configuration settings, by their JSON keys, put over the
	// recipe's before its budgets are applied.
	Set map[string]json.RawMessage `json:"set,omitempty"`
	// Orders are the tensor orders of the row's lines (none: 2 and 3).
	Orders []int `json:"orders,omitempty"`
	// Superseded rows are earlier versions of a recipe, or variants
	// measured on one: the history table's rows, not the learning table's.
	Superseded bool `json:"superseded,omitempty"`
	// Notebook names the entry of docs/notebook/ that dates the row.
	Notebook string `json:"notebook,omitempty"`
	About    string `json:"about"`
}

// learningRows returns the rows of learning.json, checked: a row whose
// settings cannot make a configuration is a bug of the file, not of input.
func learningRows() []learningRow { return decodeRows("learning.json", learningJSON, false) }

// decodeRows decodes the rows of an embedded rows file (named file, for the
// panic) and checks that each makes a configuration, and with validate a
// valid one: a row that does not is a bug of the file, not of input.
func decodeRows(file string, data []byte, validate bool) []learningRow {
	var rows []learningRow
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rows); err != nil {
		panic(fmt.Sprintf("%s: %v", file, err))
	}
	for _, r := range rows {
		c, err := r.config(GridOptions{Seeds: 1}, "anbn", 3)
		if err == nil && validate {
			err = c.Validate()
		}
		if err != nil {
			panic(fmt.Sprintf("%s: row %q: %v", file, r.Label, err))
		}
	}
	return rows
}

// orders are the tensor orders of the row's lines.
func (r learningRow) orders() []int {
	if len(r.Orders) == 0 {
		return []int{2, 3}
	}
	return r.Orders
}

// config is the row's configuration for one grammar and order, with the
// estimator named and the options' budgets.
func (r learningRow) config(opt GridOptions, grammar string, order int) (experiment.Config, error) {
	if r.Recipe == "paper" {
		return withSettings(base(opt, "nspda", grammar, order), r.Set)
	}
	c, err := experiment.Recipe(r.Recipe)
	if err != nil {
		return c, err
	}
	c.Grammar = grammar
	setOpts(&c, "order", order)
	if c, err = withSettings(c, r.Set); err != nil {
		return c, err
	}
	c.Algo = c.Algorithm()
	opt.budget(&c)
	return c.Normalize(), nil
}

// withSettings returns c with the settings set put over its own, as a
// configuration file with both would read.
func withSettings(c experiment.Config, set map[string]json.RawMessage) (experiment.Config, error) {
	if len(set) == 0 {
		return c, nil
	}
	b, err := json.Marshal(c)
	if err != nil {
		return c, err
	}
	fields := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &fields); err != nil {
		return c, err
	}
	for k, v := range set {
		fields[k] = v
	}
	if b, err = json.Marshal(fields); err != nil {
		return c, err
	}
	var out experiment.Config
	err = json.Unmarshal(b, &out)
	return out, err
}

// learningMetrics are the columns of the learning tables, for each
// language.
var learningMetrics = []Metric{{Kind: Epochs}, {Kind: TestError, Set: "test60"}, {Kind: TestError, Set: "test480"}, {Kind: TestError, Set: "test960"}, {Kind: Seconds}}

func learningTable(opt GridOptions) *Table {
	t := &Table{
		Name:  "learning",
		Title: "What makes the NSPDA learn: each recipe on every language (M1 = 2nd order, M2 = 3rd order)",
		About: "The NSPDA's current recipes at second (M1) and third order (M2); the list after the tables says what each knows " +
			"of the automaton. Their earlier versions, with their stored runs: [learning-history.md](learning-history.md). " +
			"The paper has no numbers for these rows.",
		Budgets: "the paper rows: at most 500 epochs, each run's weights of its last epoch (Algorithm 1); the others: " +
			"each run's weights selected on the training and select sets (--patience), the epochs its recipe allows (below)",
	}
	return fillLearning(t, opt, func(r learningRow) bool { return !r.Superseded })
}

func learningHistoryTable(opt GridOptions) *Table {
	t := &Table{
		Name:  "learning-history",
		Title: "What makes the NSPDA learn, superseded versions: earlier recipes and variants, kept for the record",
		About: "Earlier versions of the recipes of [learning.md](learning.md), which the current ones replaced, and variants " +
			"measured on them, kept for the record with their stored runs. The list after the tables says what each row is " +
			"and where docs/notebook/ dates it.",
		Budgets: "each run's weights selected on the training and select sets (--patience), the epochs its row allows (below)",
		figures: []tableFigure{}, // a record, not a result: no figures
	}
	return fillLearning(t, opt, func(r learningRow) bool { return r.Superseded })
}

// fillLearning sets t's columns, and its rows to those of learning.json
// that keep accepts, and returns t.
func fillLearning(t *Table, opt GridOptions, keep func(learningRow) bool) *Table {
	t.Glance = &Metric{Kind: TestError, Set: "test960"}
	if opt.Quick {
		t.Glance = &Metric{Kind: TestError, Set: "test60"}
	}
	var metrics []Metric
	for _, g := range allGrammars {
		for _, m := range learningMetrics {
			label := g + " " + strings.TrimSuffix(strings.TrimSuffix(m.Name(), " % error"), " to converge")
			t.Columns = append(t.Columns, Column{Label: label, Grammar: g})
			metrics = append(metrics, m)
		}
	}
	for _, r := range learningRows() {
		if !keep(r) {
			continue
		}
		t.Legend = append(t.Legend, r.legend())
		for _, order := range r.orders() {
			t.Rows = append(t.Rows, fmt.Sprintf("%s M%d", r.Label, order-1))
			t.Cells = append(t.Cells, r.cells(opt, t.Columns, metrics, order, "learning.json"))
		}
	}
	return t
}

// cells are the row's cells at one order, metrics[i] that of column i;
// file names the rows' file in a panic (its rows were all checked).
// With --quick only test60 is evaluated.
func (r learningRow) cells(opt GridOptions, cols []Column, metrics []Metric, order int, file string) []Cell {
	var cells []Cell
	for ci, col := range cols {
		m := metrics[ci]
		if opt.Quick && m.Kind == TestError && m.Set != "test60" {
			cells = append(cells, Cell{Metric: m, Note: "not evaluated with --quick"})
			continue
		}
		cfg, err := r.config(opt, col.Grammar, order)
		if err != nil {
			panic(fmt.Sprintf("%s: row %q: %v", file, r.Label, err))
		}
		cells = append(cells, Cell{Configs: seeds(cfg, opt.Seeds), Metric: m})
	}
	return cells
}

// legend is the row's entry in the list that says what each row is.
func (r learningRow) legend() string {
	s := fmt.Sprintf("**%s**: %s", r.Label, r.About)
	if r.Notebook != "" {
		s += fmt.Sprintf(" (Dates: docs/notebook/, %s.)", r.Notebook)
	}
	return s
}
