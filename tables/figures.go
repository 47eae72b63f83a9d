package tables

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/train"
)

// figureSeries is one curve (or bar) of a table's figures: the runs of one
// row, and order when the columns have one, on one grammar.
type figureSeries struct {
	label   string
	grammar string
	configs []experiment.Config
	paper   string // the paper's test60 % error for this series, if the table has it
}

// figureSeries lists the table's distinct series in row, then column order,
// and the distinct labels (which fix each label's color across tiles).
func (t *Table) figureSeries() ([]figureSeries, []string) {
	var out []figureSeries
	var labels []string
	index := make(map[string]int)
	for r, row := range t.Cells {
		for ci, cell := range row {
			if cell.Configs == nil {
				continue
			}
			col := t.Columns[ci]
			label := t.Rows[r]
			if col.Series != "" {
				label += " " + col.Series
			}
			label = noKern(label)
			id := label + "\x00" + col.Grammar
			i, ok := index[id]
			if !ok {
				i = len(out)
				index[id] = i
				out = append(out, figureSeries{label: label, grammar: col.Grammar, configs: cell.Configs})
				if !containsString(labels, label) {
					labels = append(labels, label)
				}
			}
			if cell.Metric == (Metric{Kind: TestError, Set: "test60"}) {
				out[i].paper = cell.Paper
			}
		}
	}
	return out, labels
}

// noKern replaces spaces by no-break spaces: the Liberation faces kern a
// space after "A" to nothing ("NSPDA M1" would read "NSPDAM1").
func noKern(s string) string { return strings.ReplaceAll(s, " ", "\u00a0") }

// figureTitle names the table in a figure's title: the paper's name for it
// and the repro command's.
func (t *Table) figureTitle() string {
	name, _, _ := strings.Cut(t.Title, ":")
	return fmt.Sprintf("%s (%s)", name, t.Name)
}

// grammarsOf lists the grammars of the table's columns in order.
func (t *Table) grammarsOf() []string {
	var gs []string
	for _, c := range t.Columns {
		if !containsString(gs, c.Grammar) {
			gs = append(gs, c.Grammar)
		}
	}
	return gs
}

// lineStyle is the style of the i-th label: one of the dark colors, then
// dashes once they are used up.
func lineStyle(i int) (draw.LineStyle, color.Color) {
	c := plotutil.DarkColors[i%len(plotutil.DarkColors)]
	return draw.LineStyle{Color: c, Width: vg.Points(1.2), Dashes: plotutil.Dashes(i / len(plotutil.DarkColors))}, c
}

// band returns a translucent min–max band between lo and hi over xs.
func band(xs, lo, hi []float64, c color.Color) *plotter.Polygon {
	ring := make(plotter.XYs, 0, 2*len(xs))
	for i := range xs {
		ring = append(ring, plotter.XY{X: xs[i], Y: lo[i]})
	}
	for i := len(xs) - 1; i >= 0; i-- {
		ring = append(ring, plotter.XY{X: xs[i], Y: hi[i]})
	}
	r, g, b, _ := c.RGBA()
	fill := color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x38}
	return &plotter.Polygon{XYs: []plotter.XYs{ring}, Color: fill, LineStyle: draw.LineStyle{Color: color.Transparent}}
}

// readMetrics reads a run directory's metrics (experiment.ReadMetrics).
func readMetrics(dir string) ([]train.Metrics, error) {
	path := filepath.Join(dir, experiment.MetricsFile)
	b, err := experiment.ReadMetrics(dir)
	if err != nil {
		return nil, err
	}
	var out []train.Metrics
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var m train.Metrics
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

// seedCurves reduces per-seed curves to their mean, min and max at each
// x = 1..longest; a curve that ended (a converged run) keeps its last value.
func seedCurves(curves [][]float64) (xs, mean, lo, hi []float64) {
	n := 0
	for _, c := range curves {
		n = max(n, len(c))
	}
	for e := range n {
		sum, mn, mx := 0.0, math.Inf(1), math.Inf(-1)
		for _, c := range curves {
			v := c[min(e, len(c)-1)]
			sum += v
			mn, mx = math.Min(mn, v), math.Max(mx, v)
		}
		xs = append(xs, float64(e+1))
		mean = append(mean, sum/float64(len(curves)))
		lo, hi = append(lo, mn), append(hi, mx)
	}
	return xs, mean, lo, hi
}

// tilePlot returns an empty plot for one grammar's tile.
func tilePlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	p.Title.TextStyle.Font = figureFont(10)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = figureFont(8)
		a.Tick.Label.Font = figureFont(7)
	}
	p.Add(plotter.NewGrid())
	return p
}

// figureFont is the figures' typeface (Liberation Sans: the default serif
// face kerns "A " to nothing) at the given size in points.
func figureFont(points float64) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: vg.Points(points)}
}

// figure is a set of tiles, one per grammar, and a legend in the last tile.
type figure struct {
	title  string
	tiles  []*plot.Plot
	legend plot.Legend
}

// Figure geometry: three tiles a row, under a title, above the provenance.
const (
	figureCols  = 3
	figureTileW = 11 * vg.Centimeter
	figureTileH = 8 * vg.Centimeter
	figureHead  = 1.2 * vg.Centimeter
	figureFoot  = 1.4 * vg.Centimeter
)

// render draws the figure in format ("png" or "svg").
func (f *figure) render(prov Provenance, format string) ([]byte, error) {
	rows := (len(f.tiles) + 1 + figureCols - 1) / figureCols
	w, h := figureCols*figureTileW, vg.Length(rows)*figureTileH+figureHead+figureFoot
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return nil, err
	}
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	sty := text.Style{Color: color.Black, Font: figureFont(11), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YTop}
	dc.FillText(sty, vg.Point{X: w / 2, Y: h - vg.Points(6)}, f.title)
	sty.Font, sty.XAlign, sty.YAlign = figureFont(7), draw.XLeft, draw.YBottom
	for i, l := range prov.Lines() {
		dc.FillText(sty, vg.Point{X: vg.Points(8), Y: vg.Points(4) + vg.Length(len(prov.Lines())-1-i)*vg.Points(9)}, l)
	}
	body := draw.Crop(dc, 0, 0, figureFoot, -figureHead)
	tiles := draw.Tiles{Rows: rows, Cols: figureCols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, figureCols)
	}
	for i, p := range f.tiles {
		grid[i/figureCols][i%figureCols] = p
	}
	canvases := plot.Align(grid, tiles, body)
	for i, p := range f.tiles {
		p.Draw(canvases[i/figureCols][i%figureCols])
	}
	n := len(f.tiles)
	f.legend.Top, f.legend.Left = true, true
	f.legend.TextStyle.Font = figureFont(8)
	f.legend.Draw(draw.Crop(tiles.At(body, n%figureCols, n/figureCols), vg.Millimeter*6, 0, 0, -vg.Millimeter*4))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// curvesFigure draws training accuracy against epoch for every series, the
// mean over the finished seeds with a min–max band.
func curvesFigure(t *Table, s experiment.Store) (*figure, error) {
	tile := func(g string) *plot.Plot { return tilePlot(g, "epoch", "training accuracy %") }
	curve := func(cfg experiment.Config) ([]float64, error) {
		if !s.Finished(cfg.Key()) {
			return nil, nil
		}
		ms, err := readMetrics(s.RunDir(cfg.Key()))
		if err != nil || len(ms) == 0 {
			return nil, err
		}
		c := make([]float64, len(ms))
		for i, m := range ms {
			c[i] = m.TrainAcc
		}
		return c, nil
	}
	return seriesFigure(t, " — training accuracy by epoch (mean, min–max band over seeds)", false, tile, curve, addCurve)
}

// seriesFigure draws one tile per grammar, made by tile with a y axis of
// 0–100, holding for every series of that grammar the curves that curve reads
// off its runs (nil: the run has none), drawn by add in the series' style.
func seriesFigure(t *Table, title string, points bool, tile func(g string) *plot.Plot,
	curve func(cfg experiment.Config) ([]float64, error),
	add func(p *plot.Plot, sty draw.LineStyle, curves [][]float64) error) (*figure, error) {
	series, labels := t.figureSeries()
	f := &figure{title: t.figureTitle() + title, legend: plot.NewLegend()}
	styles := legendStyles(&f.legend, labels, points)
	for _, g := range t.grammarsOf() {
		p := tile(g)
		p.Y.Min, p.Y.Max = 0, 100
		for _, sr := range series {
			if sr.grammar != g {
				continue
			}
			var curves [][]float64
			for _, cfg := range sr.configs {
				c, err := curve(cfg)
				if err != nil {
					return nil, err
				}
				if c != nil {
					curves = append(curves, c)
				}
			}
			if err := add(p, styles[sr.label], curves); err != nil {
				return nil, err
			}
		}
		f.tiles = append(f.tiles, p)
	}
	return f, nil
}

// addCurve plots the mean of curves and their min–max band.
func addCurve(p *plot.Plot, sty draw.LineStyle, curves [][]float64) error {
	if len(curves) == 0 {
		return nil
	}
	xs, mean, lo, hi := seedCurves(curves)
	pts := make(plotter.XYs, len(xs))
	for i := range xs {
		pts[i] = plotter.XY{X: xs[i], Y: mean[i]}
	}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	line.LineStyle = sty
	if len(curves) > 1 {
		p.Add(band(xs, lo, hi, sty.Color))
	}
	p.Add(line)
	return nil
}

// legendStyles adds one legend entry per label and returns their styles.
func legendStyles(l *plot.Legend, labels []string, points bool) map[string]draw.LineStyle {
	styles := make(map[string]draw.LineStyle)
	for i, label := range labels {
		sty, c := lineStyle(i)
		styles[label] = sty
		line := &plotter.Line{LineStyle: sty}
		if points {
			l.Add(label, line, &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: c, Radius: vg.Points(2), Shape: draw.CircleGlyph{}}})
		} else {
			l.Add(label, line)
		}
	}
	return styles
}
