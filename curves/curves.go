// Package curves draws learning curves from run directories' metrics.jsonl.
package curves

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nspda/nspda/internal/atomicfile"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Point is one epoch of a run.
type Point struct {
	Epoch    int     `json:"epoch"`
	TrainAcc float64 `json:"train_acc"`
	ValidAcc float64 `json:"valid_acc"`
	Loss     float64 `json:"loss"`
}

// Read returns the epochs recorded in dir's metrics.jsonl.
func Read(dir string) ([]Point, error) {
	f, err := os.Open(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var pts []Point
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var p Point
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, fmt.Errorf("%s/metrics.jsonl:%d: %v", dir, n, err)
		}
		pts = append(pts, p)
	}
	return pts, sc.Err()
}

// Plot draws training accuracy against epoch, one line per run directory,
// labelled by the directory's base name, into out (.png or .svg), with
// caption as the figure's title. out is written atomically: on any error,
// an unsupported format or a full disk, it is left as it was.
func Plot(out, caption string, dirs []string) error {
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
		pts, err := Read(dir)
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
