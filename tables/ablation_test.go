package tables

import (
	"slices"
	"strings"
	"testing"

	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/experiment"
)

// TestAblationGrid: the default's row, then ten rows of the bounded
// recipe (the recipe and nine without one part), then the serial recipe's
// row, at both orders, on the five languages; each recipe's rows come
// together, third order first, the default's first; --quick keeps the
// default's row, one seed and test60.
func TestAblationGrid(t *testing.T) {
	rows := ablationRows()
	if len(rows) != 12 || rows[0].Label != "default" || rows[1].Label != "bounded" || rows[11].Label != "serial" {
		t.Fatalf("%d rows, want the default, then bounded and nine ablations, then serial", len(rows))
	}
	groups := [][]learningRow{rows[:1], rows[1:11], rows[11:]}
	for _, tc := range []struct {
		opt    GridOptions
		groups int
		runs   int
	}{{GridOptions{Seeds: 3}, 3, 12 * 2 * 5 * 3}, {GridOptions{Seeds: 2}, 3, 12 * 2 * 5 * 2}, {GridOptions{Seeds: 1, Quick: true}, 1, 2 * 5}} {
		tab, err := Grid("ablation", tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, g := range groups[:tc.groups] {
			for _, order := range []string{"M2", "M1"} {
				for _, r := range g {
					want = append(want, r.Label+" "+order)
				}
			}
		}
		if !slices.Equal(tab.Rows, want) {
			t.Errorf("%+v: rows %q, want %q", tc.opt, tab.Rows, want)
		}
		if n := len(tab.Configs()); n != tc.runs {
			t.Errorf("%+v: %d runs, want %d", tc.opt, n, tc.runs)
		}
	}
}

// TestAblationDefaultIsLearningDefault: the default row's runs are the
// learning table's default runs, key for key, so the stored ones serve.
func TestAblationDefaultIsLearningDefault(t *testing.T) {
	opt := GridOptions{Seeds: 3}
	learning, _ := Grid("learning", opt)
	ablation, _ := Grid("ablation", opt)
	keys := func(tab *Table, row string) map[string]bool {
		out := map[string]bool{}
		for i, r := range tab.Rows {
			if r == row {
				for _, c := range tab.Cells[i] {
					for _, cfg := range c.Configs {
						out[cfg.Key()] = true
					}
				}
			}
		}
		return out
	}
	for _, order := range []string{"M1", "M2"} {
		want, got := keys(learning, "default (PDA targets) "+order), keys(ablation, "default "+order)
		if len(got) != 15 || len(got) != len(want) {
			t.Fatalf("%s: %d default runs, learning has %d", order, len(got), len(want))
		}
		for k := range got {
			if !want[k] {
				t.Errorf("%s: default run %s is not one of the learning table's", order, k)
			}
		}
	}
}

// TestAblationRowsValidate: every row makes a configuration Validate
// accepts on every language and order, each ablation's runs differ from
// its recipe's (bounded's or serial's), every row says what it is,
// and none is named by when it was measured.
func TestAblationRowsValidate(t *testing.T) {
	rows := ablationRows()
	for _, g := range allGrammars {
		for _, order := range ablationOrders {
			base := map[string]experiment.Config{}
			for _, r := range rows {
				if r.Label == r.Recipe {
					base[r.Recipe], _ = r.config(GridOptions{Seeds: 1}, g, order)
				}
			}
			if len(base) != 3 {
				t.Fatalf("recipes' rows %v, want default, bounded and serial", base)
			}
			seen := map[string]string{}
			for _, r := range rows {
				def := base[r.Recipe]
				c, err := r.config(GridOptions{Seeds: 1}, g, order)
				if err == nil {
					err = c.Validate()
				}
				if err != nil {
					t.Errorf("%s on %s order %d: %v", r.Label, g, order, err)
				}
				if other, dup := seen[c.Key()]; dup {
					t.Errorf("%s on %s order %d: the runs of %q", r.Label, g, order, other)
				}
				seen[c.Key()] = r.Label
				if r.Label != r.Recipe && c.Key() == def.Key() {
					t.Errorf("%s: the %s recipe's runs", r.Label, r.Recipe)
				}
			}
		}
	}
	for _, r := range rows {
		if strings.Contains(strings.ToLower(r.Label), "probe") {
			t.Errorf("row %q is named by a probe, not by what it removes", r.Label)
		}
		if r.About == "" {
			t.Errorf("row %q does not say what it is", r.Label)
		}
		if r.Label != r.Recipe && !strings.HasPrefix(r.Label, r.Recipe+" without ") {
			t.Errorf("row %q is not named by what it removes", r.Label)
		}
	}
}

// ablationSource answers for the runs of seed 1, and of seed 2 of runs
// with a polishing start (the bounded and serial recipes'): exact on anbn,
// dyck2 and palindrome, wrong on edit960 elsewhere, each with its own wall
// seconds.
type ablationSource struct{}

func (ablationSource) Summary(cfg experiment.Config) (*experiment.Summary, error) {
	if cfg.Seed != 1 && (cfg.Seed != 2 || cfg.Polish == 0) {
		return nil, nil
	}
	s := &experiment.Summary{Epochs: 10 * len(cfg.Grammar), WallSeconds: float64(len(cfg.Grammar)), Converged: true,
		Sets: []evaluate.Result{{Name: "test960", Strings: 10}, {Name: "edit960", Strings: 10, Errors: 1}}}
	if cfg.Grammar == "anbn" || cfg.Grammar == "dyck2" || cfg.Grammar == "palindrome" {
		s.Sets[1].Errors = 0
	}
	return s, nil
}

// TestAblationSummary: the glance counts a run exact only with no error on
// every set it reports (edit960 too), times the exact runs, totals every
// finished run once, and says how many runs are still to finish.
func TestAblationSummary(t *testing.T) {
	tab, _ := Grid("ablation", GridOptions{Seeds: 2})
	res, err := Collate(tab, ablationSource{})
	if err != nil {
		t.Fatal(err)
	}
	md := string(Markdown(tab, res, Provenance{Command: "nspda repro ablation", Seeds: 2}, nil))
	// Exact: anbn (4 s, 40 epochs), dyck2 (5 s, 50 epochs) and palindrome
	// (10 s, 100 epochs); finished: the five languages' first seeds,
	// 10+4+9+7+5 = 35 s.
	want := "| bounded without polish M2 | 3/5 (5/10 finished) | 5 | 19 | 50 | 35 | 3/5 | 35 |"
	if !strings.Contains(md, want) {
		t.Errorf("Markdown lacks %q:\n%s", want, md)
	}
	// The default (no polish) finished seed 1; bounded (with a polish)
	// both seeds; a bounded row compares with the bounded row's runs:
	// beside the row without polish, bounded's seed 1 only.
	if want := "| default M2 | 3/5 (5/10 finished) | 5 | 19 | 50 | 35 | 3/5 | 35 |"; !strings.Contains(md, want) {
		t.Errorf("Markdown lacks %q", want)
	}
	if want := "| bounded M2 | 6/10 | 5 | 38 | 50 | 70 | 6/10 | 70 |"; !strings.Contains(md, want) {
		t.Errorf("Markdown lacks %q", want)
	}
	// The serial row compares with its own runs: seed 1 and, having a
	// polish, seed 2.
	if want := "| serial M2 | 6/10 | 5 | 38 | 50 | 70 | 6/10 | 70 |"; !strings.Contains(md, want) {
		t.Errorf("Markdown lacks %q", want)
	}
	if tab.Rows[len(tab.Rows)-1] != "serial M1" {
		t.Fatalf("last row %q", tab.Rows[len(tab.Rows)-1])
	}
	res[len(res)-1] = make([]CellResult, len(tab.Columns)) // no run of the last row finished
	md = string(Markdown(tab, res, Provenance{Command: "nspda repro ablation", Seeds: 2}, nil))
	if want := "| serial M1 | – (0/10 finished) | – | – | – | – | – | – |"; !strings.Contains(md, want) {
		t.Errorf("Markdown lacks %q", want)
	}
	if !strings.Contains(md, "depend on the machine's load") {
		t.Error("the glance does not say that wall seconds depend on load")
	}
	if glance, full := strings.Index(md, "| exact |"), strings.Index(md, "Each cell"); glance < 0 || full < glance {
		t.Errorf("the summary (at %d) is not before the long table (at %d)", glance, full)
	}
}
