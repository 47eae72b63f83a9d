package tables

import (
	"math"
	"testing"
)

// TestLengthsHeat: the comparison table, with its 18 rows a language, and
// the learning history, with 33, are drawn as heat maps; the noise table's
// 4 rows and the learning table's 8 stay curves; a cell with no finished
// run prints as "–".
func TestLengthsHeat(t *testing.T) {
	comparison, _ := Grid("comparison", GridOptions{Seeds: 1})
	history, _ := Grid("learning-history", GridOptions{Seeds: 1})
	learning, _ := Grid("learning", GridOptions{Seeds: 1})
	noise, _ := Grid("noise", GridOptions{Seeds: 1})
	if !manyRows(comparison) || !manyRows(history) || manyRows(learning) || manyRows(noise) {
		t.Fatalf("manyRows: comparison %v, learning history %v, learning %v, noise %v",
			manyRows(comparison), manyRows(history), manyRows(learning), manyRows(noise))
	}
	bins := LengthBins(true)
	f, err := lengthsHeatFigure(comparison, map[string]*LengthErrors{}, bins)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.tiles) != len(allGrammars) {
		t.Fatalf("%d tiles, want one per language", len(f.tiles))
	}
	if _, err := f.render(NewProvenance("test", GridOptions{Seeds: 1}), "png"); err != nil {
		t.Fatal(err)
	}
	g := errGrid{z: [][]float64{{math.NaN(), 12.345}}, bins: bins[:2]}
	if g.label(0, 0) != "–" || g.label(1, 0) != "12.3" {
		t.Fatalf("labels %q %q", g.label(0, 0), g.label(1, 0))
	}
}
