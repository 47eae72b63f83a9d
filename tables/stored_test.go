package tables

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nspda/nspda/experiment"
)

// TestLearningRowsStored: every run of the learning table's earlier recipes
// (the rows kept when a recipe changed) is in the repository's store, so a
// change of a recipe re-keys only its own new row.
func TestLearningRowsStored(t *testing.T) {
	tab, err := Grid("learning", GridOptions{Seeds: 5})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r, label := range tab.Rows {
		if !strings.Contains(label, ",") && !strings.HasPrefix(label, "paper") && !strings.HasPrefix(label, "data-only") {
			continue // a current recipe's row: its runs may be under way
		}
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
		t.Fatal("no earlier rows in the learning table")
	}
	t.Logf("%d run cells of earlier recipes, all stored", n)
}
