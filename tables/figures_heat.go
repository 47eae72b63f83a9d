package tables

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// heatRows is the number of series per grammar above which the error
// against length is drawn as a heat map (rows × length bins) instead of one
// curve with a band per series, which would overlap past reading.
const heatRows = 8

// errGrid is the mean % error of each series (row) in each length bin
// (column); NaN where no run finished.
type errGrid struct {
	z    [][]float64 // [row][bin]
	bins []LengthBin
}

func (g errGrid) Dims() (c, r int)   { return len(g.bins), len(g.z) }
func (g errGrid) Z(c, r int) float64 { return g.z[r][c] }
func (g errGrid) X(c int) float64    { return float64(c) }
func (g errGrid) Y(r int) float64    { return float64(r) }
func (g errGrid) Min() float64       { return 0 }
func (g errGrid) Max() float64       { return 50 }
func (g errGrid) label(c, r int) string {
	if v := g.z[r][c]; !math.IsNaN(v) {
		return fmt.Sprintf("%.1f", v)
	}
	return "–"
}

// errPalette runs from white (0% error) through yellow to red (50%, a coin
// toss, and above).
type errPalette struct{}

func (errPalette) Colors() []color.Color {
	const n = 50
	cs := make([]color.Color, n)
	for i := range cs {
		f := float64(i) / (n - 1)
		g := uint8(255 * (1 - 0.8*f))
		b := uint8(255 * (1 - f) * (1 - f))
		cs[i] = color.RGBA{R: 255, G: g, B: b, A: 255}
	}
	return cs
}

// lengthsHeatFigure draws, for each grammar, the mean % error of every
// series (rows, the table's row order from the top) in every length bin
// (columns), the number printed in each cell.
func lengthsHeatFigure(t *Table, lengths map[string]*LengthErrors, bins []LengthBin) (*figure, error) {
	series, _ := t.figureSeries()
	f := &figure{title: t.figureTitle() + " — mean % error against string length (white 0%, red ≥ 50%; – none finished)", legend: plot.NewLegend()}
	for _, g := range t.grammarsOf() {
		var grid errGrid
		grid.bins = bins
		var names []string
		for _, sr := range series {
			if sr.grammar != g {
				continue
			}
			row := make([]float64, len(bins))
			for i := range row {
				sum, n := 0.0, 0
				for _, cfg := range sr.configs {
					if le := lengths[cfg.Key()]; le != nil && i < len(le.Results) {
						sum += le.Results[i].ErrorPct
						n++
					}
				}
				row[i] = math.NaN()
				if n > 0 {
					row[i] = sum / float64(n)
				}
			}
			// plot rows grow upwards: prepend, so the table's first row is on top
			grid.z = append([][]float64{row}, grid.z...)
			names = append([]string{sr.label}, names...)
		}
		p := tilePlot(g, "string length", "")
		heat := plotter.NewHeatMap(grid, errPalette{})
		heat.NaN = color.RGBA{R: 230, G: 230, B: 230, A: 255}
		heat.Overflow = errPalette{}.Colors()[49]
		p.Add(heat)
		var xys plotter.XYs
		var labels []string
		for r := range grid.z {
			for c := range bins {
				xys = append(xys, plotter.XY{X: float64(c), Y: float64(r)})
				labels = append(labels, grid.label(c, r))
			}
		}
		lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
		if err != nil {
			return nil, err
		}
		for i := range lab.TextStyle {
			lab.TextStyle[i].Font = figureFont(5)
			lab.TextStyle[i].XAlign, lab.TextStyle[i].YAlign = -0.5, -0.5
		}
		p.Add(lab)
		var xt, yt []plot.Tick
		for c, b := range bins {
			xt = append(xt, plot.Tick{Value: float64(c), Label: fmt.Sprintf("%d–%d", b.Min, b.Max)})
		}
		for r, n := range names {
			yt = append(yt, plot.Tick{Value: float64(r), Label: n})
		}
		p.X.Tick.Marker, p.Y.Tick.Marker = plot.ConstantTicks(xt), plot.ConstantTicks(yt)
		p.X.Min, p.X.Max = -0.5, float64(len(bins))-0.5
		p.Y.Min, p.Y.Max = -0.5, float64(len(names))-0.5
		p.Y.Tick.Label.Font = figureFont(5)
		p.X.Tick.Label.Font = figureFont(6)
		p.Y.Padding, p.X.Padding = vg.Points(1), vg.Points(1)
		f.tiles = append(f.tiles, p)
	}
	return f, nil
}

// manyRows reports whether t has more series per grammar than curves can
// show apart.
func manyRows(t *Table) bool {
	series, _ := t.figureSeries()
	per := map[string]int{}
	for _, sr := range series {
		per[sr.grammar]++
	}
	for _, n := range per {
		if n > heatRows {
			return true
		}
	}
	return false
}
