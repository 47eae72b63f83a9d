package experiment

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"github.com/nspda/nspda/internal/atomicfile"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sync/errgroup"
)

// IndexFile is the page of an output directory that links every table and
// figure in it.
const IndexFile = "index.md"

// figureKinds are the figures of a table, in the order they are listed:
// NAME-curves (trained tables only), NAME-bars and NAME-lengths.
var figureKinds = []string{"curves", "bars", "lengths"}

// ReportOptions say where and how a table's files are written.
type ReportOptions struct {
	Dir        string // output directory, created if needed
	Provenance Provenance
	Workers    int  // evaluations on length bins at once
	NoFigures  bool // tables only
}

// WriteReport writes t's files into o.Dir from the runs in s (or, for the
// programmed table, from networks programmed now): NAME.md and NAME.csv,
// and unless o.NoFigures NAME-curves, NAME-bars and NAME-lengths in PNG and
// SVG; then it rewrites the directory's index. Runs not finished are shown
// as such. It returns the files written, in order.
func WriteReport(ctx context.Context, t *Table, s Store, o ReportOptions) (_ []string, err error) {
	created := newDirs(o.Dir)
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil { // a failure before the first file (a full disk) leaves no empty directory
			for _, d := range created {
				os.Remove(d) // only if empty
			}
		}
	}()
	var src Source = StoreSource{s}
	if t.Budgets != "" {
		o.Provenance.Budgets = t.Budgets
	}
	if t.Programmed {
		o.Provenance.NoTraining = true
		ps := &ProgrammedSource{}
		if err := warm(ctx, t, ps, o.Workers); err != nil {
			return nil, err
		}
		src = ps
	}
	res, err := Collate(t, src)
	if err != nil {
		return nil, err
	}
	var written, figures []string
	if !o.NoFigures {
		if figures, written, err = writeFigures(ctx, t, s, src, o); err != nil {
			return nil, err
		}
	}
	files := map[string][]byte{
		t.Name + ".md":  Markdown(t, res, o.Provenance, figures),
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

// warm evaluates the programmed table's cells, workers at a time, so that
// Collate finds them cached.
func warm(ctx context.Context, t *Table, ps *ProgrammedSource, workers int) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, workers))
	for _, row := range t.Cells {
		for _, cell := range row {
			for _, cfg := range cell.Configs {
				g.Go(func() error {
					if err := ctx.Err(); err != nil {
						return err
					}
					_, err := ps.Summary(cfg)
					return err
				})
			}
		}
	}
	return g.Wait()
}

// writeFigures draws t's figures and returns their stems and the files
// written.
func writeFigures(ctx context.Context, t *Table, s Store, src Source, o ReportOptions) (stems, files []string, err error) {
	bins := LengthBins(o.Provenance.Quick)
	sets := &lengthSets{}
	fn := func(cfg Config) (*LengthErrors, error) {
		if t.Programmed {
			return sets.programmedLengths(cfg, bins)
		}
		if s.State(cfg.Key()) != Finished {
			return nil, nil
		}
		return sets.storedLengths(s, cfg, bins)
	}
	lengths, err := computeLengths(ctx, t, fn, o.Workers)
	if err != nil {
		return nil, nil, err
	}
	for _, kind := range figureKinds {
		var f *figure
		switch kind {
		case "curves":
			if t.Programmed {
				continue
			}
			f, err = curvesFigure(t, s)
		case "bars":
			f, err = barsFigure(t, src)
		case "lengths":
			if manyRows(t) {
				f, err = lengthsHeatFigure(t, lengths, bins)
			} else {
				f, err = lengthsFigure(t, lengths, bins)
			}
		}
		if err != nil {
			return nil, nil, err
		}
		stem := t.Name + "-" + kind
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

// WriteIndex writes dir/index.md: for every table of TableNames whose
// Markdown file is in dir, its title and links to its table, CSV and
// figures.
func WriteIndex(dir string, prov Provenance) error {
	var b bytes.Buffer
	b.WriteString("# Reproduction of the paper's tables\n\n")
	b.WriteString("Our measurements beside the paper's numbers (labelled *paper*). Each table and figure states the command, seeds and machine that produced it.\n")
	b.WriteString("Regenerate with `nspda repro TABLE` (trains what the store lacks) or `nspda repro TABLE --tables-only` (no training).\n\n")
	fmt.Fprintf(&b, "Last written by `%s` (%d cores, %s); each table's own page states how it was made.\n", prov.Command, prov.Cores, prov.GoVersion)
	for _, name := range TableNames() {
		title, err := firstHeading(filepath.Join(dir, name+".md"))
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n- Table: [%s.md](%s.md), [%s.csv](%s.csv)\n", title, name, name, name, name)
		for _, kind := range figureKinds {
			stem := name + "-" + kind
			if exists(filepath.Join(dir, stem+".svg")) {
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
