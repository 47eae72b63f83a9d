package tables

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/internal/atomicfile"
)

// IndexFile is the page of an output directory that links every table and
// figure in it.
const IndexFile = "index.md"

// figureKinds are the figures a table may have, in the order the index
// lists them: NAME-curves (trained tables only), NAME-bars and
// NAME-lengths.
var figureKinds = []string{"curves", "bars", "lengths"}

// ReportOptions say where and how a table's files are written.
type ReportOptions struct {
	Dir        string // output directory, created if needed
	Provenance Provenance
	Workers    int  // evaluations on length bins at once
	NoFigures  bool // tables only
}

// WriteReport writes t's files into o.Dir from the runs in s (or from its
// own source: the programmed table's networks, programmed now): NAME.md and
// NAME.csv, and unless o.NoFigures the table's figures (NAME-curves,
// NAME-bars, NAME-lengths) in PNG and SVG; then it rewrites the directory's
// index. Runs not finished are shown as such. It returns the files written,
// in order.
func WriteReport(ctx context.Context, t *Table, s experiment.Store, o ReportOptions) (_ []string, err error) {
	created := atomicfile.NewDirs(o.Dir)
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil { // a failure before the first file (a full disk) leaves no empty directory
			atomicfile.RemoveEmpty(created)
		}
	}()
	var src reportSource = StoreSource{s}
	if t.Budgets != "" {
		o.Provenance.Budgets = t.Budgets
	}
	if t.source != nil {
		o.Provenance.NoTraining = true
		var err error
		if src, err = t.source(ctx, t, o.Workers); err != nil {
			return nil, err
		}
	}
	res, err := Collate(t, src)
	if err != nil {
		return nil, err
	}
	var written, figures []string
	if !o.NoFigures {
		r := &report{ctx: ctx, t: t, store: s, src: src, bins: LengthBins(o.Provenance.Quick), workers: o.Workers}
		if figures, written, err = r.writeFigures(o); err != nil {
			return nil, err
		}
	}
	var glance []byte
	if t.glance != nil {
		if glance, err = t.glance(ctx, t, s, res, o.Workers); err != nil {
			return nil, err
		}
	}
	files := map[string][]byte{
		t.Name + ".md":  markdown(t, res, o.Provenance, figures, glance),
		t.Name + ".csv": CSV(t, res, o.Provenance),
	}
	for _, name := range []string{t.Name + ".md", t.Name + ".csv"} {
		if err := atomicfile.WriteFile(filepath.Join(o.Dir, name), files[name]); err != nil {
			return nil, err
		}
		written = append(written, name)
	}
	if err := WriteIndex(o.Dir, o.Provenance); err != nil {
		return nil, err
	}
	return append(written, IndexFile), nil
}

// reportSource is where a report reads a table's results: the summaries of
// its runs, and their networks' errors by length.
type reportSource interface {
	Source
	// lengths returns the errors by length on bins of cfg's network (nil:
	// its run is not finished), drawing the strings from sets.
	lengths(sets *lengthSets, cfg experiment.Config, bins []LengthBin) (*LengthErrors, error)
}

// lengths evaluates the trained model of cfg's finished run (storedLengths).
func (s StoreSource) lengths(sets *lengthSets, cfg experiment.Config, bins []LengthBin) (*LengthErrors, error) {
	if !s.Store.Finished(cfg.Key()) {
		return nil, nil
	}
	return sets.storedLengths(s.Store, cfg, bins)
}

// report is what a table's figures are drawn from.
type report struct {
	ctx     context.Context
	t       *Table
	store   experiment.Store
	src     reportSource
	bins    []LengthBin
	workers int
}

// tableFigure is one of a table's figures, written as NAME-kind.png and
// NAME-kind.svg.
type tableFigure struct {
	kind string
	draw func(r *report) (*figure, error)
}

// The figures of a table: defaultFigures unless the table lists its own.
var (
	// curves: training accuracy by epoch, read from the runs' metrics.
	curvesFig = tableFigure{"curves", func(r *report) (*figure, error) { return curvesFigure(r.t, r.store) }}
	// bars: the test error of every row on every language.
	barsFig = tableFigure{"bars", func(r *report) (*figure, error) { return barsFigure(r.t, r.src) }}
	// lengths: the error against string length, as curves or (many rows) a
	// heat map.
	lengthsFig = tableFigure{"lengths", (*report).lengthsFigure}

	defaultFigures = []tableFigure{curvesFig, barsFig, lengthsFig}
)

// lengthsFigure evaluates every series' networks on the length bins,
// workers at a time, and draws their errors.
func (r *report) lengthsFigure() (*figure, error) {
	sets := &lengthSets{}
	fn := func(cfg experiment.Config) (*LengthErrors, error) { return r.src.lengths(sets, cfg, r.bins) }
	lengths, err := computeLengths(r.ctx, r.t, fn, r.workers)
	if err != nil {
		return nil, err
	}
	if manyRows(r.t) {
		return lengthsHeatFigure(r.t, lengths, r.bins)
	}
	return lengthsFigure(r.t, lengths, r.bins)
}

// writeFigures draws the table's figures and returns their stems and the
// files written.
func (r *report) writeFigures(o ReportOptions) (stems, files []string, err error) {
	figs := r.t.figures
	if figs == nil {
		figs = defaultFigures
	}
	for _, fig := range figs {
		f, err := fig.draw(r)
		if err != nil {
			return nil, nil, err
		}
		stem := r.t.Name + "-" + fig.kind
		for _, format := range []string{"png", "svg"} {
			b, err := f.render(o.Provenance, format)
			if err != nil {
				return nil, nil, err
			}
			name := stem + "." + format
			if err := atomicfile.WriteFile(filepath.Join(o.Dir, name), b); err != nil {
				return nil, nil, err
			}
			files = append(files, name)
		}
		stems = append(stems, stem)
	}
	return stems, files, nil
}

// WriteIndex writes dir/index.md: for every table of Names whose
// Markdown file is in dir, its title and links to its table, CSV and
// figures.
func WriteIndex(dir string, prov Provenance) error {
	var b bytes.Buffer
	b.WriteString("# Reproduction of the paper's tables\n\n")
	b.WriteString("Our measurements beside the paper's numbers (labelled *paper*). Each table and figure states the command, seeds and machine that produced it.\n")
	b.WriteString("Regenerate with `nspda repro TABLE` (trains what the store lacks) or `nspda repro TABLE --tables-only` (no training).\n\n")
	fmt.Fprintf(&b, "Last written by `%s` (%d cores, %s); each table's own page states how it was made.\n", prov.Command, prov.Cores, prov.GoVersion)
	for _, name := range Names() {
		title, err := firstHeading(filepath.Join(dir, name+".md"))
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n- Table: [%s.md](%s.md), [%s.csv](%s.csv)\n", title, name, name, name, name)
		for _, kind := range figureKinds {
			stem := name + "-" + kind
			if _, err := os.Stat(filepath.Join(dir, stem+".svg")); err == nil {
				fmt.Fprintf(&b, "- Figure: [%s](%s.svg) ([PNG](%s.png))\n\n  ![%s](%s.png)\n", stem, stem, stem, stem, stem)
			}
		}
	}
	return atomicfile.WriteFile(filepath.Join(dir, IndexFile), b.Bytes())
}

// firstHeading returns the text of a Markdown file's first "# " line.
func firstHeading(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if h, ok := strings.CutPrefix(sc.Text(), "# "); ok {
			return h, nil
		}
	}
	return "", fmt.Errorf("%s: no title", path)
}
