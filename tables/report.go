package tables

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"

	"github.com/nspda/nspda/experiment"
)

// Source gives the summary of a configuration's run, or nil if it has not
// finished.
type Source interface {
	Summary(cfg experiment.Config) (*experiment.Summary, error)
}

// eachFinished calls f, in order, with each of configs whose run is
// finished (its index and summary), stopping at the first error reading a
// summary or from f.
func eachFinished(src Source, configs []experiment.Config, f func(i int, cfg experiment.Config, sum *experiment.Summary) error) error {
	for i, cfg := range configs {
		sum, err := src.Summary(cfg)
		if err != nil {
			return err
		}
		if sum == nil {
			continue
		}
		if err := f(i, cfg, sum); err != nil {
			return err
		}
	}
	return nil
}

// StoreSource reads summaries from a Store.
type StoreSource struct{ Store experiment.Store }

// Summary returns the stored summary of cfg, nil if it is not finished.
func (s StoreSource) Summary(cfg experiment.Config) (*experiment.Summary, error) {
	return s.Store.Summary(cfg.Key())
}

// CellResult is a cell's runs reduced to its metric.
type CellResult struct {
	Cell      Cell
	Finished  int                            // runs with a summary
	Converged int                            // finished runs that converged
	Exact     int                            // finished runs with no error on any of the paper's test sets they were evaluated on (exact)
	Values    []float64                      // the metric of each finished run that has it, in seed order
	Budget    float64                        // convergence metrics: the least epochs or characters a non-converged run spent
	Stats     Stats                          // of Values
	sums      map[string]*experiment.Summary // the summary of each finished run, by key
}

// Runs is the number of runs the cell asks for.
func (r CellResult) Runs() int { return len(r.Cell.Configs) }

// Collate reduces every cell of t to a CellResult, reading summaries from src.
func Collate(t *Table, src Source) ([][]CellResult, error) {
	out := make([][]CellResult, len(t.Cells))
	for i, row := range t.Cells {
		for _, cell := range row {
			r, err := collateCell(cell, src)
			if err != nil {
				return nil, err
			}
			out[i] = append(out[i], r)
		}
	}
	return out, nil
}

func collateCell(cell Cell, src Source) (CellResult, error) {
	r := CellResult{Cell: cell, Budget: math.Inf(1)}
	err := eachFinished(src, cell.Configs, func(_ int, cfg experiment.Config, sum *experiment.Summary) error {
		r.Finished++
		if r.sums == nil {
			r.sums = map[string]*experiment.Summary{}
		}
		r.sums[cfg.Key()] = sum
		if exact(sum) {
			r.Exact++
		}
		if sum.Converged {
			r.Converged++
		} else {
			r.Budget = math.Min(r.Budget, cell.Metric.Budget(sum))
		}
		if v, ok := cell.Metric.Value(sum); ok {
			r.Values = append(r.Values, v)
		}
		return nil
	})
	if err != nil {
		return r, err
	}
	r.Stats = Describe(r.Values)
	return r, nil
}

// exact reports whether a run errs on none of the paper's test sets
// (test60, test480, test960) it was evaluated on, and was evaluated on one.
func exact(s *experiment.Summary) bool { return exactOn(s, "test") }

// exactOn reports whether a run errs on none of the sets it reports whose
// name begins with prefix ("": every set, the edit sets too), and reports
// one.
func exactOn(s *experiment.Summary, prefix string) bool {
	n := 0
	for _, r := range s.Sets {
		if !strings.HasPrefix(r.Name, prefix) {
			continue
		}
		if r.Errors != 0 || r.Strings == 0 {
			return false
		}
		n++
	}
	return n > 0
}

// Ours renders our measurement of the cell, one line: "mean ± sd [95% CI
// low, high]" (or the value alone for one seed), "k/n converged: values" when
// a convergence metric did not converge in every run, with notes on runs
// not converged or not finished.
func (r CellResult) Ours() string {
	m, n := r.Cell.Metric, r.Runs()
	switch {
	case r.Cell.Configs == nil:
		return "not run"
	case r.Finished == 0:
		return fmt.Sprintf("not run yet (0/%d)", n)
	}
	var text string
	var notes []string
	switch {
	case m.Convergence() && r.Converged == 0:
		unit := map[MetricKind]string{Epochs: "epochs", Chars: "chars"}[m.Kind]
		text = fmt.Sprintf("0/%d converged (> %.0f %s)", r.Finished, r.Budget, unit)
	case m.Convergence() && r.Converged < r.Finished:
		vals := make([]string, len(r.Values))
		for i, v := range r.Values {
			vals[i] = m.Format(v)
		}
		text = fmt.Sprintf("%d/%d converged: %s", r.Converged, r.Finished, strings.Join(vals, ", "))
	case len(r.Values) == 0:
		text = "no value"
	default:
		text = r.statsText()
		if !m.Convergence() && r.Converged < r.Finished {
			notes = append(notes, fmt.Sprintf("%d/%d converged", r.Converged, r.Finished))
		}
	}
	if r.Finished < n {
		notes = append(notes, fmt.Sprintf("%d/%d runs finished", r.Finished, n))
	}
	if len(notes) > 0 {
		text += " (" + strings.Join(notes, "; ") + ")"
	}
	return text
}

// Brief renders our measurement in a few characters for the at-a-glance
// table: the mean, "k/n conv." for a convergence metric not reached by every
// run, "(f/n)" when not every run has finished, "–" when none has.
func (r CellResult) Brief() string {
	m, n := r.Cell.Metric, r.Runs()
	var text string
	switch {
	case r.Cell.Configs == nil:
		return "not run"
	case r.Finished == 0:
		return "–"
	case m.Convergence() && r.Converged < r.Finished:
		text = fmt.Sprintf("%d/%d conv.", r.Converged, r.Finished)
	case len(r.Values) == 0:
		text = "no value"
	default:
		text = m.Format(r.Stats.Mean)
	}
	if r.Finished < n {
		text += fmt.Sprintf(" (%d/%d)", r.Finished, n)
	}
	return text
}

func (r CellResult) statsText() string {
	m, s := r.Cell.Metric, r.Stats
	if s.N == 1 {
		return m.Format(s.Mean) + " (1 seed)"
	}
	return fmt.Sprintf("%s ± %s [%s, %s]", m.Format(s.Mean), m.Format(s.SD), m.Format(s.Low), m.Format(s.High))
}

// Paper is the paper's number as printed, "" when it has none.
func (r CellResult) Paper() string { return r.Cell.Paper }

// full renders a cell of the long table: ours, and the paper's number
// where it has one.
func (r CellResult) full() string {
	if r.Paper() == "" {
		return r.Ours()
	}
	return "ours: " + r.Ours() + "<br>paper: " + r.Paper()
}

// glance renders a cell of the at-a-glance table: our mean, and the
// paper's number where it has one.
func (r CellResult) glance() string {
	if r.Paper() == "" {
		return r.Brief()
	}
	return r.Brief() + " · " + r.Paper()
}

// compact renders a cell of a compact at-a-glance table: the runs exact of
// those finished and the mean (Brief).
func (r CellResult) compact() string {
	if r.Cell.Configs == nil || r.Finished == 0 {
		return r.Brief()
	}
	return fmt.Sprintf("%d/%d · %s", r.Exact, r.Finished, r.Brief())
}

// Provenance is what every table and figure file says about how it was made.
type Provenance struct {
	Command    string // the command line
	Seeds      int
	Quick      bool
	NoTraining bool // the table's networks are programmed, not trained
	// Budgets, when set, says what the runs' budgets and final weights are
	// instead of the paper's (a table whose rows differ in them).
	Budgets   string
	KeepBest  bool   // runs end with their best-validation weights
	Cores     int    // runtime.NumCPU()
	GoVersion string // runtime.Version()
}

// NewProvenance describes files made now by command with the grid options.
func NewProvenance(command string, opt GridOptions) Provenance {
	return Provenance{Command: command, Seeds: opt.Seeds, Quick: opt.Quick, KeepBest: opt.KeepBest, Cores: runtime.NumCPU(), GoVersion: runtime.Version()}
}

// Lines returns the provenance as lines of text.
func (p Provenance) Lines() []string {
	budget := "the paper's budgets (at most 500 epochs, 1987 + 2021 training strings)"
	switch {
	case p.NoTraining:
		budget = "no training: programmed networks, the seeds draw the test strings"
	case p.Quick:
		budget = fmt.Sprintf("quick budgets (%d epochs, %d + %d training strings, test60 only): a smoke test, not a measurement", QuickEpochs, QuickStrings, QuickStrings)
	}
	switch {
	case p.NoTraining:
	case p.Budgets != "" && !p.Quick:
		budget = p.Budgets
	case p.KeepBest:
		budget += "; each run's weights of its best epoch on the validation set (--keep-best)"
	default:
		budget += "; each run's weights of its last epoch (Algorithm 1)"
	}
	return []string{
		"Command: " + p.Command,
		fmt.Sprintf("Seeds: %d (Config.Seed = 1..%d); %s", p.Seeds, p.Seeds, budget),
		fmt.Sprintf("Machine: %d cores, %s", p.Cores, p.GoVersion),
	}
}

// Compute counts the distinct runs a collated table asks for, those
// finished, and the sum of the finished runs' wall-clock seconds (a run that
// appears in several cells, as one run's train and test error do, counts once).
func Compute(t *Table, res [][]CellResult) (finished, runs int, seconds float64) {
	all := map[string]bool{}
	done := map[string]float64{}
	for i, row := range res {
		for j, r := range row {
			for _, cfg := range t.Cells[i][j].Configs {
				all[cfg.Key()] = true
			}
			for k, sum := range r.sums {
				done[k] = sum.WallSeconds
			}
		}
	}
	for _, w := range done {
		seconds += w
	}
	return len(done), len(all), seconds
}

// Markdown renders the table: a title, the provenance, what the grid is,
// the table at a glance, then one row per table row whose cells hold our
// measurement (and the paper's number where it has one), the notes, what
// each row is (Legend) and the figures.
func Markdown(t *Table, res [][]CellResult, prov Provenance, figures []string) []byte {
	return markdown(t, res, prov, figures, nil)
}

// markdown is Markdown with the table at a glance given (glance, made by
// Table.glance), or nil to make it from res.
func markdown(t *Table, res [][]CellResult, prov Provenance, figures []string, glance []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", t.Title)
	for _, l := range prov.Lines() {
		fmt.Fprintf(&b, "- %s\n", mdCode(l))
	}
	if !prov.NoTraining {
		done, runs, secs := Compute(t, res)
		fmt.Fprintf(&b, "- Runs: %d of %d finished; compute: %.1f hours (the sum of the finished runs' `wall_seconds`)\n", done, runs, secs/3600)
	}
	fmt.Fprintf(&b, "\n%s\n\n", t.About)
	paper := hasPaper(t)
	switch {
	case glance != nil:
		b.Write(glance)
	case t.summary != nil:
		t.summary(&b, t, res)
	default:
		mdGlance(&b, t, res, paper, prov.Quick)
	}
	b.WriteString("\nEach cell: ")
	if paper {
		b.WriteString("**ours** — ")
	}
	b.WriteString("mean ± sample sd [95% confidence interval of the mean, Student's t] over the seeds " +
		"(a convergence metric over converged runs only: otherwise \"k/n converged\" and their values)")
	if paper {
		b.WriteString(", then **paper** — the paper's number as printed, where it has one")
	}
	fmt.Fprintf(&b, ". Metric: %s.\n\n", metricNames(t))
	mdTable(&b, t, res, CellResult.full)
	mdList(&b, "", tableNotes(t))
	mdList(&b, "Rows:", t.Legend)
	if len(figures) > 0 {
		b.WriteString("\nFigures:\n\n")
		for _, f := range figures {
			fmt.Fprintf(&b, "- [%s](%s.svg) ([PNG](%s.png))\n", f, f, f)
		}
	}
	return b.Bytes()
}

// mdGlance writes the table at a glance: every column's mean (and the
// paper's number), or with t.Glance one column per language.
func mdGlance(b *bytes.Buffer, t *Table, res [][]CellResult, paper, quick bool) {
	const finished = "\"(f/n)\": f of n runs finished; \"–\": none yet"
	if t.Glance == nil {
		b.WriteString("At a glance: our mean")
		if paper {
			b.WriteString(" · the paper's number, where it has one")
		}
		fmt.Fprintf(b, " (%s).\n\n", finished)
		mdTable(b, t, res, CellResult.glance)
		return
	}
	sets := "test60, test480 or test960"
	if quick {
		sets = "test60" // the only test set --quick evaluates
	}
	fmt.Fprintf(b, "At a glance, per language: k/n · e, k of the n finished runs exact (no error on %s) and e their mean %s (%s).\n\n",
		sets, t.Glance.Name(), finished)
	var cols []int // the glance metric's column of each language
	for j := range t.Columns {
		if len(t.Cells) > 0 && t.Cells[0][j].Metric == *t.Glance {
			cols = append(cols, j)
		}
	}
	b.WriteString("| |")
	for _, j := range cols {
		fmt.Fprintf(b, " %s |", t.Columns[j].Grammar)
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(cols)) + "\n")
	for i, row := range t.Rows {
		fmt.Fprintf(b, "| %s |", row)
		for _, j := range cols {
			fmt.Fprintf(b, " %s |", res[i][j].compact())
		}
		b.WriteString("\n")
	}
}

// mdList writes items as a Markdown list after a blank line and the
// heading (if any); nothing if there are none.
func mdList(b *bytes.Buffer, heading string, items []string) {
	if len(items) == 0 {
		return
	}
	b.WriteString("\n")
	if heading != "" {
		b.WriteString(heading + "\n\n")
	}
	for _, it := range items {
		fmt.Fprintf(b, "- %s\n", it)
	}
}

// hasPaper reports whether any cell of t has the paper's number.
func hasPaper(t *Table) bool {
	for _, row := range t.Cells {
		for _, c := range row {
			if c.Paper != "" {
				return true
			}
		}
	}
	return false
}

// mdTable writes the table's rows and columns as a Markdown table, each
// cell's text made by cell.
func mdTable(b *bytes.Buffer, t *Table, res [][]CellResult, cell func(CellResult) string) {
	b.WriteString("| |")
	for _, c := range t.Columns {
		fmt.Fprintf(b, " %s |", c.Label)
	}
	b.WriteString("\n|---|")
	for range t.Columns {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for i, row := range t.Rows {
		fmt.Fprintf(b, "| %s |", row)
		for _, r := range res[i] {
			fmt.Fprintf(b, " %s |", cell(r))
		}
		b.WriteString("\n")
	}
}

// mdCode puts the command of a provenance line in backquotes.
func mdCode(line string) string {
	if cmd, ok := strings.CutPrefix(line, "Command: "); ok {
		return "Command: `" + cmd + "`"
	}
	return line
}

// metricNames lists the table's distinct metrics.
func metricNames(t *Table) string {
	var names []string
	for _, row := range t.Cells {
		for _, c := range row {
			if n := c.Metric.Name(); !containsString(names, n) {
				names = append(names, n)
			}
		}
	}
	return strings.Join(names, ", ")
}

// tableNotes lists the distinct notes of the table's cells.
func tableNotes(t *Table) []string {
	var notes []string
	for i, row := range t.Cells {
		for _, c := range row {
			if c.Note != "" && !containsString(notes, t.Rows[i]+": "+c.Note) {
				notes = append(notes, t.Rows[i]+": "+c.Note)
			}
		}
	}
	return notes
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// CSVHeader is the header row of a table's CSV file.
var CSVHeader = []string{"table", "row", "column", "metric", "runs", "finished", "converged", "n",
	"mean", "sd", "ci95_low", "ci95_high", "values", "nonconverged_budget", "paper", "ours"}

// CSV renders the table in long form, one line per cell, after "#" comment
// lines with the provenance. Numbers have four decimals; values are our
// per-seed values, ";"-separated; paper is the paper's number as printed.
func CSV(t *Table, res [][]CellResult, prov Provenance) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n", t.Title)
	for _, l := range prov.Lines() {
		fmt.Fprintf(&b, "# %s\n", l)
	}
	w := csv.NewWriter(&b)
	_ = w.Write(CSVHeader)
	for i, row := range res {
		for j, r := range row {
			vals := make([]string, len(r.Values))
			for k, v := range r.Values {
				vals[k] = num(v)
			}
			budget := ""
			if r.Cell.Metric.Convergence() && r.Converged < r.Finished {
				budget = num(r.Budget)
			}
			_ = w.Write([]string{t.Name, t.Rows[i], t.Columns[j].Label, r.Cell.Metric.Name(),
				strconv.Itoa(r.Runs()), strconv.Itoa(r.Finished), strconv.Itoa(r.Converged), strconv.Itoa(r.Stats.N),
				num(r.Stats.Mean), num(r.Stats.SD), num(r.Stats.Low), num(r.Stats.High),
				strings.Join(vals, ";"), budget, r.Cell.Paper, r.Ours()})
		}
	}
	w.Flush()
	return b.Bytes()
}

// num formats v with four decimals, "" for NaN.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}
