package tables

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nspda/nspda/experiment"
)

// TestLearningRowsStored: every run of the learning table and its history
// is in the repository's store, so a recipe that changes keeps its measured
// runs addressable as a row of their own, and a new row comes with its runs.
func TestLearningRowsStored(t *testing.T) {
	var cfgs []experiment.Config
	for _, name := range []string{"learning", "learning-history"} {
		tab, err := Grid(name, GridOptions{Seeds: 5})
		if err != nil {
			t.Fatal(err)
		}
		cfgs = append(cfgs, tab.Configs()...)
	}
	if len(cfgs) == 0 {
		t.Fatal("the learning table has no runs")
	}
	missing := 0
	for _, cfg := range cfgs {
		if _, err := os.Stat(filepath.Join("../results", cfg.Key(), experiment.SummaryFile)); err != nil {
			missing++
			t.Errorf("%s order %d seed %d (%s): run %s is not in the store", cfg.Grammar, cfg.TensorOrder(), cfg.Seed, cfg.Loss, cfg.Key())
		}
	}
	t.Logf("%d runs, %d missing", len(cfgs), missing)
}
