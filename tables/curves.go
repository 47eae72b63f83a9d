package tables

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/nspda/nspda/internal/atomicfile"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// PlotCurves draws training accuracy against epoch, one line per run
// directory (its metrics.jsonl),
// labelled by the directory's base name, into out (.png or .svg), with
// caption as the figure's title. out is written atomically: on any error,
// an unsupported format or a full disk, it is left as it was.
func PlotCurves(out, caption string, dirs []string) error {
	format := strings.ToLower(strings.TrimPrefix(filepath.Ext(out), "."))
	if format != "png" && format != "svg" {
		return fmt.Errorf("%s: unsupported format %q: give a .png or .svg file", out, filepath.Ext(out))
	}
	p := plot.New()
	p.Title.Text = caption
	p.X.Label.Text = "epoch"
	p.Y.Label.Text = "training accuracy (%)"
	p.Y.Min, p.Y.Max = 40, 100
	p.Add(plotter.NewGrid())
	for i, dir := range dirs {
		pts, err := readMetrics(dir)
		if err != nil {
			return err
		}
		xy := make(plotter.XYs, len(pts))
		for j, q := range pts {
			xy[j].X, xy[j].Y = float64(q.Epoch), q.TrainAcc
		}
		line, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		line.Color = plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i / 7)
		p.Add(line)
		p.Legend.Add(filepath.Base(dir), line)
	}
	p.Legend.Top = false
	p.Legend.Left = false
	wt, err := p.WriterTo(7*vg.Inch, 4*vg.Inch, format)
	if err != nil {
		return err
	}
	return atomicfile.Write(out, func(w io.Writer) error {
		_, err := wt.WriteTo(w)
		return err
	})
}
