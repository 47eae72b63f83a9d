package tables

import (
	"context"
	"fmt"
	"image/color"
	"math"
	"sync"

	"golang.org/x/sync/errgroup"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/nspda/nspda/experiment"
)

// errorBars pairs points with their error bars.
type errorBars struct {
	plotter.XYs
	plotter.XErrors
}

// minMax returns the mean, min and max of xs.
func minMax(xs []float64) (mean, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		mean += x
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return mean / float64(len(xs)), lo, hi
}

// barsFigure draws each series' test60 % error as a horizontal bar (the mean
// over finished seeds, whiskers min–max) with the paper's number as a black
// triangle, one tile per grammar.
func barsFigure(t *Table, src Source) (*figure, error) {
	series, labels := t.figureSeries()
	f := &figure{title: t.figureTitle() + " — test60 % error by model and language (mean, min–max whiskers; paper: triangles)", legend: plot.NewLegend()}
	ours := color.NRGBA{R: 24, G: 90, B: 169, A: 255}
	f.legend.Add("ours (mean over seeds, min–max)", &plotter.BarChart{Color: ours})
	paperGlyph := draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3), Shape: draw.PyramidGlyph{}}
	f.legend.Add("paper", &plotter.Scatter{GlyphStyle: paperGlyph})
	test60 := Metric{Kind: TestError, Set: "test60"}
	for _, g := range t.grammarsOf() {
		p := tilePlot(g, "test60 % error", "")
		p.X.Min, p.X.Max = 0, 100
		names := make([]string, len(labels))
		for i, l := range labels {
			names[len(labels)-1-i] = l
		}
		if len(names) > 0 { // none: no cell has runs yet (a table whose search is not finished)
			p.NominalY(names...)
		}
		p.Y.Tick.Label.Font = figureFont(6)
		var paper plotter.XYs
		for _, sr := range series {
			if sr.grammar != g {
				continue
			}
			y := float64(len(labels) - 1 - indexOf(labels, sr.label))
			var vals []float64
			err := eachFinished(src, sr.configs, func(_ int, _ experiment.Config, sum *experiment.Summary) error {
				if v, ok := test60.Value(sum); ok {
					vals = append(vals, v)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			if v, bound, ok := PaperNumber(sr.paper); ok && !bound {
				paper = append(paper, plotter.XY{X: v, Y: y})
			}
			if len(vals) == 0 {
				continue
			}
			if err := addBar(p, y, vals, ours); err != nil {
				return nil, err
			}
		}
		if len(paper) > 0 {
			sc, err := plotter.NewScatter(paper)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = paperGlyph
			p.Add(sc)
		}
		f.tiles = append(f.tiles, p)
	}
	return f, nil
}

// addBar adds one horizontal bar at y with min–max whiskers.
func addBar(p *plot.Plot, y float64, vals []float64, c color.Color) error {
	mean, lo, hi := minMax(vals)
	bar, err := plotter.NewBarChart(plotter.Values{mean}, vg.Points(6))
	if err != nil {
		return err
	}
	bar.Horizontal, bar.XMin, bar.Color = true, y, c
	bar.LineStyle.Width = 0
	p.Add(bar)
	if len(vals) > 1 {
		eb, err := plotter.NewXErrorBars(errorBars{plotter.XYs{{X: mean, Y: y}}, plotter.XErrors{{Low: mean - lo, High: hi - mean}}})
		if err != nil {
			return err
		}
		p.Add(eb)
	}
	return nil
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// lengthsFunc returns a run's errors by length, nil if the run is not
// finished.
type lengthsFunc func(cfg experiment.Config) (*LengthErrors, error)

// computeLengths evaluates every series' runs on the bins, workers at a
// time, keyed by Config.Key().
func computeLengths(ctx context.Context, t *Table, fn lengthsFunc, workers int) (map[string]*LengthErrors, error) {
	series, _ := t.figureSeries()
	out := make(map[string]*LengthErrors)
	var mu sync.Mutex
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, workers))
	for _, sr := range series {
		for _, cfg := range sr.configs {
			g.Go(func() error {
				if err := ctx.Err(); err != nil {
					return err
				}
				le, err := fn(cfg)
				if err != nil {
					return fmt.Errorf("%s (%s): errors by length: %v", cfg.Key(), cfg.Model, err)
				}
				mu.Lock()
				out[cfg.Key()] = le
				mu.Unlock()
				return nil
			})
		}
	}
	return out, g.Wait()
}

// lengthsFigure draws the % error of every series against string length,
// the mean over finished seeds with a min–max band, one tile per grammar.
func lengthsFigure(t *Table, lengths map[string]*LengthErrors, bins []LengthBin) (*figure, error) {
	var ticks []plot.Tick
	for _, b := range bins {
		ticks = append(ticks, plot.Tick{Value: binMid(b), Label: fmt.Sprintf("%d–%d", b.Min, b.Max)})
	}
	tile := func(g string) *plot.Plot {
		p := tilePlot(g, "string length (log scale)", "% error")
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = float64(bins[0].Min), float64(bins[len(bins)-1].Max)
		return p
	}
	curve := func(cfg experiment.Config) ([]float64, error) {
		le := lengths[cfg.Key()]
		if le == nil {
			return nil, nil
		}
		c := make([]float64, len(le.Results))
		for i, r := range le.Results {
			c[i] = r.ErrorPct
		}
		return c, nil
	}
	add := func(p *plot.Plot, sty draw.LineStyle, curves [][]float64) error {
		return addLengthCurve(p, sty, curves, bins)
	}
	return seriesFigure(t, " — % error against string length (mean, min–max band over seeds)", true, tile, curve, add)
}

// binMid is the geometric middle of a bin, where its point is drawn.
func binMid(b LengthBin) float64 { return math.Sqrt(float64(b.Min) * float64(b.Max)) }

func addLengthCurve(p *plot.Plot, sty draw.LineStyle, curves [][]float64, bins []LengthBin) error {
	if len(curves) == 0 {
		return nil
	}
	_, mean, lo, hi := seedCurves(curves)
	xs := make([]float64, len(bins))
	pts := make(plotter.XYs, len(bins))
	for i, b := range bins {
		xs[i] = binMid(b)
		pts[i] = plotter.XY{X: xs[i], Y: mean[i]}
	}
	line, sc, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	line.LineStyle = sty
	sc.GlyphStyle = draw.GlyphStyle{Color: sty.Color, Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
	if len(curves) > 1 {
		p.Add(band(xs, lo, hi, sty.Color))
	}
	p.Add(line, sc)
	return nil
}
