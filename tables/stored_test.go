package tables

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nspda/nspda/experiment"
)

// TestLearningRowsStored: every run of the learning table is in the
// repository's store, so a recipe that changes keeps its measured runs
// addressable as a row of their own, and a new row comes with its runs.
func TestLearningRowsStored(t *testing.T) {
	tab, err := Grid("learning", GridOptions{Seeds: 5})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r, label := range tab.Rows {
		for _, cell := range tab.Cells[r] {
			for _, cfg := range cell.Configs {
				n++
				if _, err := os.Stat(filepath.Join("../results", cfg.Key(), experiment.SummaryFile)); err != nil {
					t.Errorf("%s, %s seed %d: run %s is not in the store", label, cfg.Grammar, cfg.Seed, cfg.Key())
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("the learning table has no runs")
	}
	t.Logf("%d run cells, all stored", n)
}
