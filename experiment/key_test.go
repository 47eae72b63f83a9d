package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// storedResults is the repository's result store, relative to this package.
const storedResults = "../results"

// TestStoredKeys: every stored run's config.json, read the way a resumed run
// reads it, hashes to the name of its directory. A change to Config's JSON
// (a field's name, order or omitempty) would orphan every stored result; this
// test says so.
func TestStoredKeys(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(storedResults, "*", ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatalf("%s holds no %s", storedResults, ConfigFile)
	}
	for _, path := range dirs {
		dir := filepath.Dir(path)
		cfg, err := readConfig(dir)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if got, want := cfg.Key(), filepath.Base(dir); got != want {
			t.Errorf("%s: key %s, want the directory's name %s", path, got, want)
		}
	}
	t.Logf("%d stored configurations", len(dirs))
}

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
				if _, err := os.Stat(filepath.Join(storedResults, cfg.Key(), SummaryFile)); err != nil {
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
