package tables

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nspda/nspda/experiment"
)

// gridDigest hashes the keys of a table's runs, in order.
func gridDigest(cfgs []experiment.Config) string {
	h := sha256.New()
	for _, c := range cfgs {
		h.Write([]byte(c.Key() + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// TestGridSizes: the full grids have the paper's shape, five seeds each.
func TestGridSizes(t *testing.T) {
	want := map[string]int{
		"hints":       5 * 8 * 5, // two NNPDA rows (without and with the dead-state hint) and three NSPDA rows
		"incremental": 3 * 8 * 5,
		"noise":       2 * 8 * 5,
		"comparison":  len(comparisonRows()) * 5 * 5,
		"programmed":  0,
		"algorithms":  4 * 8 * 5,
		"learning":    4 * 2 * 5 * 5, // four current recipes × two orders × five languages × five seeds
		// twenty-one superseded recipes and variants × two orders and one third-order-only row
		"learning-history": (21*2 + 1) * 5 * 5,
		"fair":             (len(fairRows())-2)*5*FairTrials + 2*5*5, // before the search has results: its trials, and the data recipe's two rows, five seeds each
		"ablation":         12 * 2 * 5 * 5,                           // the default, the bounded recipe and nine ablations of it, the serial recipe × two orders × five languages × five seeds
		"inference":        (5 + 2) * 2 * 5,                          // five built-in languages and two PDA files × two orders × five seeds
	}
	for _, name := range Names() {
		tab, err := Grid(name, GridOptions{Seeds: 5})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(tab.Configs()); n != want[name] {
			t.Errorf("%s: %d runs, want %d", name, n, want[name])
		}
		if len(tab.Cells) != len(tab.Rows) {
			t.Errorf("%s: %d cell rows for %d rows", name, len(tab.Cells), len(tab.Rows))
		}
		for r, row := range tab.Cells {
			if len(row) != len(tab.Columns) {
				t.Errorf("%s row %d: %d cells for %d columns", name, r, len(row), len(tab.Columns))
			}
		}
		for _, c := range tab.Configs() {
			if err := c.Validate(); err != nil {
				t.Errorf("%s: %+v: %v", name, c, err)
			}
		}
	}
	if len(comparisonRows()) < 16 {
		t.Errorf("comparison has %d rows, want the paper's 16 at least", len(comparisonRows()))
	}
}

var updateGolden = flag.Bool("update", false, "rewrite testdata/grid-keys.golden")

// TestGridKeysStable pins the keys of every table's runs (full and quick)
// in testdata/grid-keys.golden. A change orphans every stored result: run
// with -update only when a change of Config, Defaults or a grid is meant to
// start the measurements over.
func TestGridKeysStable(t *testing.T) {
	var b strings.Builder
	for _, quick := range []bool{false, true} {
		for _, name := range Names() {
			a, _ := Grid(name, GridOptions{Seeds: 5, Quick: quick})
			again, _ := Grid(name, GridOptions{Seeds: 5, Quick: quick})
			if gridDigest(a.Configs()) != gridDigest(again.Configs()) {
				t.Errorf("%s: two grids, different keys", name)
			}
			first := "-"
			if cfgs := a.Configs(); len(cfgs) > 0 {
				first = cfgs[0].Key()
			}
			fmt.Fprintf(&b, "%s quick=%v runs=%d first=%s digest=%s\n", name, quick, len(a.Configs()), first, gridDigest(a.Configs()))
		}
	}
	path := filepath.Join("testdata", "grid-keys.golden")
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestGridKeysStable -update to create it)", err)
	}
	if b.String() != string(want) {
		t.Errorf("the grids' keys changed, which orphans stored results; if that is meant, run with -update.\ngot:\n%swant:\n%s", b.String(), want)
	}
}

// TestGridsShareRuns: the same setting in several tables is one run.
func TestGridsShareRuns(t *testing.T) {
	opt := GridOptions{Seeds: 1}
	find := func(table, row, col string) string {
		tab, _ := Grid(table, opt)
		for r, label := range tab.Rows {
			for c, column := range tab.Columns {
				if label == row && column.Label == col {
					return tab.Cells[r][c].Configs[0].Key()
				}
			}
		}
		t.Fatalf("%s has no cell %q / %q", table, row, col)
		return ""
	}
	algo := strings.ToUpper(base(opt, "nspda", "anbn", 3).Algo)
	keys := []string{
		find("noise", "w reg", "anbn M2"),
		find("algorithms", algo, "anbn M2"),
		find("hints", "NSPDA w/ Hint #2", "anbn W2"),
		find("comparison", "NSPDA M2", "anbn test60"),
		find("comparison", "NSPDA M2", "anbn train"),
		find("learning", "paper M2", "anbn test960"),
	}
	for _, k := range keys[1:] {
		if k != keys[0] {
			t.Errorf("shared setting has keys %v", keys)
			break
		}
	}
	if a, b := find("incremental", "2-IL", "palindrome M1"), find("hints", "NSPDA w/o hints", "palindrome W1"); a != b {
		t.Errorf("2-IL without hints %s, hints table without hints %s", a, b)
	}
}

// TestGridSeeds: a cell's runs differ in Seed only, 1..N.
func TestGridSeeds(t *testing.T) {
	tab, _ := Grid("noise", GridOptions{Seeds: 3})
	cfgs := tab.Cells[0][0].Configs
	for i, c := range cfgs {
		if c.Seed != uint64(i+1) {
			t.Errorf("run %d has seed %d", i, c.Seed)
		}
		c.Seed = 1
		if c.Key() != cfgs[0].Key() {
			t.Errorf("run %d differs in more than its seed", i)
		}
	}
	if _, err := Grid("noise", GridOptions{}); err == nil {
		t.Error("zero seeds accepted")
	}
	if _, err := Grid("table9", GridOptions{Seeds: 1}); err == nil || !strings.Contains(err.Error(), "hints") {
		t.Errorf("unknown table: %v", err)
	}
}

// TestPaperNumbersPlaced: every paper row has one value per column.
func TestPaperNumbersPlaced(t *testing.T) {
	for name, table := range map[string]map[string][]string{"hints": paperHints, "incremental": paperIncremental,
		"noise": paperNoise, "comparison": paperComparison, "programmed": paperProgrammed, "algorithms": paperAlgorithms} {
		tab, _ := Grid(name, GridOptions{Seeds: 1})
		for row, vals := range table {
			if !containsString(tab.Rows, row) {
				t.Errorf("%s: paper row %q is not a row of the table", name, row)
			}
			if len(vals) != len(tab.Columns) {
				t.Errorf("%s: paper row %q has %d values for %d columns", name, row, len(vals), len(tab.Columns))
			}
		}
	}
	if v, bound, ok := PaperNumber(">200000"); !ok || !bound || v != 200000 {
		t.Errorf(">200000 parsed as %v %v %v", v, bound, ok)
	}
	if _, _, ok := PaperNumber("NA"); ok {
		t.Error("NA parsed as a number")
	}
}

// TestGridKeepBest: --keep-best marks every run of a grid, so its runs have
// keys of their own, and the tables say which weights they report.
func TestGridKeepBest(t *testing.T) {
	plain, _ := Grid("comparison", GridOptions{Seeds: 2})
	kb, _ := Grid("comparison", GridOptions{Seeds: 2, KeepBest: true})
	keys := map[string]bool{}
	for _, c := range plain.Configs() {
		keys[c.Key()] = true
	}
	runs := kb.Configs()
	if len(runs) != len(keys) {
		t.Fatalf("%d keep-best runs, %d plain ones", len(runs), len(keys))
	}
	for _, c := range runs {
		if !c.KeepBest || keys[c.Key()] {
			t.Fatalf("keep-best grid run %+v: KeepBest %v, shares a plain run's key %v", c, c.KeepBest, keys[c.Key()])
		}
	}
	for _, tc := range []struct {
		opt  GridOptions
		want string
	}{
		{GridOptions{Seeds: 5}, "weights of its last epoch (Algorithm 1)"},
		{GridOptions{Seeds: 5, KeepBest: true}, "best epoch on the validation set (--keep-best)"},
	} {
		if l := NewProvenance("nspda repro comparison", tc.opt).Lines()[1]; !strings.Contains(l, tc.want) {
			t.Errorf("provenance %q lacks %q", l, tc.want)
		}
	}
}

// TestGridsValidate: every configuration of every table's grid passes
// Validate (the stored results were made with them).
func TestGridsValidate(t *testing.T) {
	for _, quick := range []bool{false, true} {
		for _, name := range Names() {
			tab, err := Grid(name, GridOptions{Seeds: 1, Quick: quick})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range tab.Configs() {
				if err := c.Validate(); err != nil {
					t.Errorf("%s: %+v: %v", name, c, err)
				}
			}
		}
	}
}
