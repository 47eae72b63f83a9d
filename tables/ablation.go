package tables

import (
	"bytes"
	_ "embed"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/nspda/nspda/experiment"
)

// ablationJSON lists the rows of the ablation table: the default recipe;
// then the frozen recipe bounded (the default before the finish, with the
// last resorts the default no longer has) and bounded without one of its
// parts each, by the settings that remove it; then the frozen recipe
// serial, the default before its starts ran as a bounded portfolio. Each
// row is named by its recipe, alone or followed by "without" and the part,
// and compares with its recipe's row. The default row is the learning
// table's, so its runs are the stored ones.
//
//go:embed ablation.json
var ablationJSON []byte

// ablationOrders are the table's orders, third first: a grid run in the
// table's order finishes every row at third order (M2) before any at
// second, and `--seeds 2` before `--seeds 3` the first seeds of each.
var ablationOrders = []int{3, 2}

// ablationMetrics are the detailed table's columns, for each language.
var ablationMetrics = []Metric{{Kind: Epochs}, {Kind: TestError, Set: "test960"}, {Kind: TestError, Set: "edit960"}, {Kind: Seconds}}

// ablationRows returns the rows of ablation.json, checked: a row whose
// settings cannot make a valid configuration is a bug of the file.
func ablationRows() []learningRow { return decodeRows("ablation.json", ablationJSON, true) }

func ablationTable(opt GridOptions) *Table {
	t := &Table{
		Name:  "ablation",
		Title: "What each part of the default recipe pays: the default and the default without each part (M1 = 2nd order, M2 = 3rd order)",
		About: "Leave-one-out ablations of `nspda train`'s default recipe on the five languages: each row removes one part " +
			"(the list after the tables says which settings), every other setting the default's. A run is exact when it errs " +
			"on none of the test sets it reports (test60, test480, test960, edit60 and edit960). " +
			"The default row's runs are the learning table's default runs; the bounded rows are the recipe `bounded`, the default before " +
			"the finish (without it, and with a polish and final starts as last resorts, which the default no longer has), then `bounded` " +
			"without each part. The serial row is the recipe `serial`, the default before its starts ran as a bounded portfolio " +
			"(one start at a time, none cut short); its leave-one-out rows, measured in part before it was superseded, are in " +
			"docs/notebook/2026-11-29-serial-ablation.md.",
		Budgets: "each run's weights selected on the training and select sets (--patience), at most 1500 epochs a size, as the default recipe",
		figures: []tableFigure{}, // the summary is the result: the runs' curves are the learning table's kind
		summary: ablationSummary,
	}
	var metrics []Metric
	for _, g := range allGrammars {
		for _, m := range ablationMetrics {
			t.Columns = append(t.Columns, Column{Label: g + " " + m.Name(), Grammar: g})
			metrics = append(metrics, m)
		}
	}
	rows := ablationRows()
	// Each recipe's rows, third order then second: a grid run in the
	// table's order finishes the default's rows before bounded's.
	// --quick, a check of the pipeline, takes the default's alone.
	for from := 0; from < len(rows); {
		n := 1 + slices.IndexFunc(rows[from+1:], func(r learningRow) bool { return r.Recipe != rows[from].Recipe })
		if n == 0 {
			n = len(rows) - from
		}
		if opt.Quick && rows[from].Recipe != "default" {
			from += n
			continue
		}
		for _, order := range ablationOrders {
			for _, r := range rows[from : from+n] {
				t.Rows = append(t.Rows, fmt.Sprintf("%s M%d", r.Label, order-1))
				t.Cells = append(t.Cells, r.cells(opt, t.Columns, metrics, order, "ablation.json"))
			}
		}
		from += n
	}
	for _, r := range rows {
		t.Legend = append(t.Legend, r.legend())
	}
	return t
}

// ablationLine is one row's runs reduced to the summary's numbers.
type ablationLine struct {
	runs, finished, exact int
	exactSeconds          []float64 // wall seconds of the exact runs
	exactEpochs           []float64 // epochs of the exact runs
	seconds               float64   // wall seconds of every finished run
}

// ablationRow reduces a row's runs, each counted once however many cells
// show it.
func ablationRow(cells []Cell, res []CellResult) ablationLine {
	var l ablationLine
	seen := map[string]bool{}
	for j, c := range cells {
		for _, cfg := range c.Configs {
			k := cfg.Key()
			if seen[k] {
				continue
			}
			seen[k] = true
			l.runs++
			if s := res[j].sums[k]; s != nil {
				l.add(s)
			}
		}
	}
	return l
}

// add counts one finished run.
func (l *ablationLine) add(s *experiment.Summary) {
	l.finished++
	l.seconds += s.WallSeconds
	if exactOn(s, "") {
		l.exact++
		l.exactSeconds = append(l.exactSeconds, s.WallSeconds)
		l.exactEpochs = append(l.exactEpochs, float64(s.Epochs))
	}
}

// median of xs, NaN for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// cells are the line's cells of the summary table.
func (l ablationLine) cells() []string {
	if l.finished == 0 {
		return []string{fmt.Sprintf("– (0/%d finished)", l.runs), "–", "–", "–", "–"}
	}
	exact := fmt.Sprintf("%d/%d", l.exact, l.finished)
	if l.finished < l.runs {
		exact += fmt.Sprintf(" (%d/%d finished)", l.finished, l.runs)
	}
	total := 0.0
	for _, s := range l.exactSeconds {
		total += s
	}
	f := func(v float64, prec int) string {
		if math.IsNaN(v) { // no exact run
			return "–"
		}
		return fmt.Sprintf("%.*f", prec, v)
	}
	return []string{exact, f(median(l.exactSeconds), 0), f(total, 0), f(median(l.exactEpochs), 0), fmt.Sprintf("%.0f", l.seconds)}
}

// ablationSummary writes the table at a glance: per row, over the five
// languages and the seeds, the runs exact and what they took, and the
// default's runs of the same languages and seeds beside them, so that a
// row not yet finished compares with the default on what it has.
func ablationSummary(b *bytes.Buffer, t *Table, res [][]CellResult) {
	b.WriteString("At a glance, per row over the five languages and the seeds: the finished runs exact (no error on any test set " +
		"the run reports) of those finished, \"(f/n finished)\" when not all n are; the median and the total wall seconds of " +
		"the exact runs (time to exact) and their median epochs; the total wall seconds of every finished run; then the " +
		"runs of the row's recipe (default, bounded or serial) of the same languages and seeds as the row's finished ones: exact of those, " +
		"and their total wall seconds. " +
		"Wall seconds depend on the machine's load (these runs shared their cores with other work): compare them within " +
		"one table, roughly.\n\n")
	b.WriteString("| | exact | median s to exact | total s to exact | median epochs (exact) | total s (finished) | its recipe, same runs: exact | its recipe, same runs: total s |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for i, row := range t.Rows {
		fmt.Fprintf(b, "| %s |", row)
		for _, c := range ablationRow(t.Cells[i], res[i]).cells() {
			fmt.Fprintf(b, " %s |", c)
		}
		def := ablationDefault(t, i, res)
		if def.finished == 0 {
			b.WriteString(" – | – |\n")
			continue
		}
		fmt.Fprintf(b, " %d/%d | %.0f |\n", def.exact, def.finished, def.seconds)
	}
}

// ablationDefault reduces the runs of the recipe's row (default, bounded or serial)
// of row i's order whose language and seed have a finished run in row i.
func ablationDefault(t *Table, i int, res [][]CellResult) ablationLine {
	var l ablationLine
	at := strings.LastIndex(t.Rows[i], " ")
	base, _, _ := strings.Cut(t.Rows[i][:at], " without ")
	d := slices.Index(t.Rows, base+t.Rows[i][at:])
	if d < 0 {
		return l
	}
	seen := map[string]bool{}
	for j, c := range t.Cells[i] {
		for s, cfg := range c.Configs {
			k, dk := cfg.Key(), t.Cells[d][j].Configs[s].Key()
			if seen[k] || res[i][j].sums[k] == nil || res[d][j].sums[dk] == nil {
				continue
			}
			seen[k] = true
			l.add(res[d][j].sums[dk])
		}
	}
	return l
}
