package tables

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/experiment"
)

// TestLearningSplitKeepsRuns: the rows of learning.json, current and
// superseded, make the runs they made when the bounded portfolio became
// the default (the default's earlier runs are the frozen recipe serial's
// row since, and the bounded portfolio's the frozen recipe bounded's since
// the finish), key for key, and the default's runs with the finish beside
// them (the default's, and the default's before its last resorts were
// dropped): the digest of their sorted keys without the finish's is the one
// of commit 7df94098. So every stored run stays a cell of one of the two
// tables.
func TestLearningSplitKeepsRuns(t *testing.T) {
	for _, tc := range []struct {
		quick  bool
		digest string
	}{{false, "7ee9c131a37242bd"}, {true, "d03389cc88c551be"}} {
		opt := GridOptions{Seeds: 5, Quick: tc.quick}
		all := fillLearning(&Table{}, opt, func(learningRow) bool { return true })
		sorted := slices.DeleteFunc(all.Configs(), func(c experiment.Config) bool { return c.Finish > 0 })
		slices.SortFunc(sorted, func(a, b experiment.Config) int { return strings.Compare(a.Key(), b.Key()) })
		if n := len(all.Configs()) - len(sorted); n != 3*2*5*5 {
			t.Errorf("quick=%v: %d runs with the finish, want the default row's 50, the data row's 50, and those of the default before its last resorts were dropped", tc.quick, n)
		}
		if got := gridDigest(sorted); got != tc.digest {
			t.Errorf("quick=%v: the learning rows' sorted keys have digest %s, want %s", tc.quick, got, tc.digest)
		}
		current, _ := Grid("learning", opt)
		history, _ := Grid("learning-history", opt)
		if n, want := len(current.Configs())+len(history.Configs()), len(all.Configs()); n != want {
			t.Errorf("quick=%v: %d runs in the two tables, %d in the rows", tc.quick, n, want)
		}
	}
}

// TestLearningRowsNamed: the learning table holds current recipes only,
// the history table superseded ones only, and no row is named by when it
// was measured.
func TestLearningRowsNamed(t *testing.T) {
	superseded := map[string]bool{}
	for _, r := range learningRows() {
		superseded[r.Label] = r.Superseded
		if strings.Contains(strings.ToLower(r.Label), "probe") {
			t.Errorf("row %q is named by a probe, not by what it is", r.Label)
		}
		if r.About == "" {
			t.Errorf("row %q does not say what it is", r.Label)
		}
	}
	for name, want := range map[string]bool{"learning": false, "learning-history": true} {
		tab, _ := Grid(name, GridOptions{Seeds: 1})
		if len(tab.Rows) == 0 || len(tab.Legend) == 0 {
			t.Fatalf("%s: %d rows, %d legend entries", name, len(tab.Rows), len(tab.Legend))
		}
		for _, row := range tab.Rows {
			label := row[:strings.LastIndex(row, " M")]
			if s, ok := superseded[label]; !ok || s != want {
				t.Errorf("%s: row %q (superseded %v, known %v)", name, row, s, ok)
			}
		}
	}
}

// TestLearningRowSettings: a row's settings are checked against the
// configuration: a setting no configuration has is refused.
func TestLearningRowSettings(t *testing.T) {
	r := learningRow{Label: "x", Recipe: "bounded", Set: map[string]json.RawMessage{"final_neutral_weight": json.RawMessage("0")}}
	c, err := r.config(GridOptions{Seeds: 1}, "anbn", 3)
	if err != nil || c.FinalNeutralWeight != 0 || c.FinalStarts == 0 {
		t.Fatalf("config %+v, %v", c, err)
	}
	r.Set = map[string]json.RawMessage{"no_such_setting": json.RawMessage("1")}
	if _, err := r.config(GridOptions{Seeds: 1}, "anbn", 3); err == nil {
		t.Error("an unknown setting accepted")
	}
}

// TestCompactGlance: the learning tables' at-a-glance table has one column
// per language: the runs exact of those finished and the mean test960
// error.
func TestCompactGlance(t *testing.T) {
	tab, _ := Grid("learning", GridOptions{Seeds: 5})
	src := fakeSource{}
	for seed := uint64(1); seed <= 4; seed++ {
		errs := 0
		if seed == 4 {
			errs = 2 // one run errs on test960; every run errs on edit960, not a test set of the paper
		}
		src[seed] = &experiment.Summary{Converged: true, Sets: []evaluate.Result{
			{Name: "test60", Strings: 100}, {Name: "test480", Strings: 100},
			{Name: "test960", Strings: 100, Errors: errs, ErrorPct: float64(errs)}, {Name: "edit960", Strings: 100, Errors: 9, ErrorPct: 9}}}
	}
	res, err := Collate(tab, src)
	if err != nil {
		t.Fatal(err)
	}
	md := string(Markdown(tab, res, Provenance{Command: "nspda repro learning", Seeds: 5}, nil))
	for _, want := range []string{
		"| | palindrome | anbn | anbncbmam | anmbncm | dyck2 |\n|---|---:|---:|---:|---:|---:|\n",
		"| default (PDA targets) M1 | 3/4 · 0.50 (4/5) |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	glance, full := strings.Index(md, "At a glance"), strings.Index(md, "Each cell")
	if glance < 0 || full < glance {
		t.Errorf("the glance table (at %d) is not before the long one (at %d)", glance, full)
	}
}

// TestNoEmptyPaperCells: no cell of any table, generated or committed,
// prints a paper's number the paper does not have.
func TestNoEmptyPaperCells(t *testing.T) {
	src := fakeRuns([]float64{1, 2, 3, 4, 5}, []int{9, 9, 9, 9, 9}, []bool{true, true, true, true, true})
	for _, name := range Names() {
		tab, _ := Grid(name, GridOptions{Seeds: 5})
		res, err := Collate(tab, src)
		if err != nil {
			t.Fatal(err)
		}
		md := string(Markdown(tab, res, Provenance{Command: "nspda repro " + name, Seeds: 5}, nil))
		for _, bad := range []string{"paper: —", "paper: |", "paper: <br>", " ·  |", " · |"} {
			if strings.Contains(md, bad) {
				t.Errorf("%s: Markdown holds %q", name, bad)
			}
		}
	}
	files, _ := filepath.Glob("../docs/tables/*.md")
	if len(files) == 0 {
		t.Fatal("no committed tables in docs/tables")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "paper: —") {
			t.Errorf("%s holds \"paper: —\"", f)
		}
	}
}

// TestCommittedLearningTables: docs/tables/learning.md holds the current
// recipes' rows and no superseded one, with a header a reader can take in
// (at most 200 words before the first table), and learning-history.md the
// superseded ones.
func TestCommittedLearningTables(t *testing.T) {
	for name, words := range map[string]int{"learning": 200, "learning-history": 200} {
		b, err := os.ReadFile(filepath.Join("../docs/tables", name+".md"))
		if err != nil {
			t.Fatal(err)
		}
		md := string(b)
		head, _, ok := strings.Cut(md, "\n| |")
		if !ok {
			t.Fatalf("%s.md has no table", name)
		}
		if n := len(strings.Fields(head)); n > words {
			t.Errorf("%s.md: %d words before the first table, want at most %d", name, n, words)
		}
		tab, _ := Grid(name, GridOptions{Seeds: 5})
		for _, row := range tab.Rows {
			if !strings.Contains(md, "\n| "+row+" |") {
				t.Errorf("%s.md lacks the row %q (regenerate it: nspda repro %s --tables-only)", name, row, name)
			}
		}
	}
	b, _ := os.ReadFile("../docs/tables/learning.md")
	for _, r := range learningRows() {
		if r.Superseded && strings.Contains(string(b), "\n| "+r.Label+" M") {
			t.Errorf("learning.md holds the superseded row %q", r.Label)
		}
	}
}
