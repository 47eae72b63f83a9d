package tables

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/grammar"
)

// TestInferenceGrid: the five built-in languages and the PDA files at both
// orders, five seeds; the built-ins' runs are the learning table's
// data-only runs, key for key (stored, nothing to train); --quick keeps
// the built-ins only.
func TestInferenceGrid(t *testing.T) {
	tab, err := Grid("inference", GridOptions{Seeds: 5})
	if err != nil {
		t.Fatal(err)
	}
	rows := 2 * (len(inferenceBuiltins) + len(inferenceFiles))
	if len(tab.Rows) != rows || len(tab.Configs()) != rows*5 {
		t.Fatalf("%d rows, %d runs; want %d and %d", len(tab.Rows), len(tab.Configs()), rows, rows*5)
	}
	learning, _ := Grid("learning", GridOptions{Seeds: 5})
	data := map[string]bool{}
	for i, r := range learning.Rows {
		if strings.HasPrefix(r, "data-only M") {
			for _, c := range learning.Cells[i] {
				for _, cfg := range c.Configs {
					data[cfg.Key()] = true
				}
			}
		}
	}
	if len(data) != 50 {
		t.Fatalf("the learning table has %d data-only runs, want 50", len(data))
	}
	files := 0
	for _, cfg := range tab.Configs() {
		switch {
		case data[cfg.Key()]:
			delete(data, cfg.Key())
		case strings.HasPrefix(cfg.Grammar, "tables/languages/"):
			files++
			if cfg.Data != "" || cfg.Loss != "" || cfg.LMWeight != 1 {
				t.Errorf("%s: not the data recipe: %+v", cfg.Grammar, cfg)
			}
		default:
			t.Errorf("run %s (%s order %d seed %d) is neither a data-only run nor on a PDA file", cfg.Key(), cfg.Grammar, cfg.TensorOrder(), cfg.Seed)
		}
	}
	if len(data) != 0 || files != (rows-2*len(inferenceBuiltins))*5 {
		t.Errorf("%d data-only runs not in the table, %d runs on PDA files", len(data), files)
	}
	for _, f := range inferenceFiles {
		if _, err := os.Stat(filepath.Join("..", f)); err != nil {
			t.Errorf("PDA file: %v", err)
		}
	}
	quick, _ := Grid("inference", GridOptions{Seeds: 1, Quick: true})
	if len(quick.Rows) != 2*len(inferenceBuiltins) {
		t.Errorf("--quick: rows %q, want the built-ins only", quick.Rows)
	}
}

// copyRun copies the stored run key from the repository's store into
// store, without its model.json if model is false.
func copyRun(t *testing.T, store, key string, model bool) {
	t.Helper()
	src := filepath.Join("..", "results", key)
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(store, key)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == experiment.ModelFile && !model {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestInferenceTableFromStore writes the table from a store of a few
// stored runs, training nothing: a PDA equal to aⁿbⁿcbᵐaᵐ, a run whose
// model.json is missing (named with `nspda restore KEY`, not an error),
// and two runs on a PDA file whose language comes from the copy in its run
// directory (the file's path is relative to the repository's root, not to
// this test's directory): one PDA that differs from it on the empty string
// only, one that differs on a longer string.
func TestInferenceTableFromStore(t *testing.T) {
	store := t.TempDir()
	const (
		equal    = "fcb649081dafacf8" // anbncbmam M2 seed 2
		noModel  = "da46f49de917ead6" // anbncbmam M2 seed 4
		notEmpty = "b308fdf48f124c27" // eqab M2 seed 4: accepts ""
		file     = "d04f774472bf6719" // eqab M2 seed 2
	)
	copyRun(t, store, equal, true)
	copyRun(t, store, notEmpty, true)
	copyRun(t, store, noModel, false)
	copyRun(t, store, file, true)
	tab, err := Grid("inference", GridOptions{Seeds: 5})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := WriteReport(context.Background(), tab, experiment.Store{Dir: store},
		ReportOptions{Dir: out, Provenance: Provenance{Command: "nspda repro inference --tables-only", Seeds: 5}, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "inference.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, want := range []string{
		"| anbncbmam | 3 (M2) | 2/2 (2/5 finished) | 1/2 (1 without model.json) | 1/2 | 1/2 | 44 |",
		"| anbn | 2 (M1) | – (0/5 finished) | – | – | – | – |",
		"| eqab (PDA file) | 3 (M2) | 2/2 (2/5 finished) | 2/2 | 0/2 | 1/2 | 20 |",
		"`nspda restore " + noModel + "`",
		"| anbncbmam M2 | 2 | `" + equal + "` | 0.00 | 10 states, by state and top | equal | 10 |",
		"| eqab (PDA file) M2 | 4 | `" + notEmpty + "` | 0.00 | 10 states, by state and empty stack | equal but on \"\" (the empty string) | 28 |",
		"differs on \"aaaabbb\"; test60: 0, test960: 0",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("inference.md lacks %q:\n%s", want, md)
		}
	}
	if glance, full := strings.Index(md, "| language | order |"), strings.Index(md, "Each cell"); glance < 0 || full < glance {
		t.Errorf("the table at a glance (at %d) is not before the long table (at %d)", glance, full)
	}
	// The store is read, never written: no file was added to a run.
	for _, key := range []string{equal, notEmpty, noModel, file} {
		a, _ := os.ReadDir(filepath.Join(store, key))
		b, _ := os.ReadDir(filepath.Join("..", "results", key))
		if want := len(b) - map[bool]int{true: 1, false: 0}[key == noModel]; len(a) != want {
			t.Errorf("run %s: %d files after the table, want %d", key, len(a), want)
		}
	}
}

// TestInferenceStored: every finished run of the inference table in the
// repository's store has its model.json (the table extracts from it), and
// every run on a built-in language is finished; without -short, the table
// made from the store, training nothing (--tables-only), is
// docs/tables/inference.md but for its command line and machine.
func TestInferenceStored(t *testing.T) {
	tab, err := Grid("inference", GridOptions{Seeds: 5})
	if err != nil {
		t.Fatal(err)
	}
	store := experiment.Store{Dir: filepath.Join("..", "results")}
	for _, cfg := range tab.Configs() {
		_, builtin := grammar.Builtin(cfg.Grammar)
		if !store.Finished(cfg.Key()) {
			if builtin {
				t.Errorf("%s order %d seed %d: run %s is not in the store", cfg.Grammar, cfg.TensorOrder(), cfg.Seed, cfg.Key())
			}
			continue
		}
		if _, err := os.Stat(filepath.Join(store.RunDir(cfg.Key()), experiment.ModelFile)); err != nil {
			t.Errorf("%s order %d seed %d: %v", cfg.Grammar, cfg.TensorOrder(), cfg.Seed, err)
		}
	}
	if testing.Short() || t.Failed() {
		t.Skip("extracts a PDA from each of the stored runs (about a minute on 2 cores)")
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "tables", "inference.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := WriteReport(context.Background(), tab, store, ReportOptions{Dir: out, Workers: 2,
		Provenance: NewProvenance("nspda repro inference --tables-only", GridOptions{Seeds: 5})}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, "inference.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The command and the machine are how it was made, not what.
	strip := func(b []byte) string {
		var keep []string
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(l, "- Command: ") && !strings.HasPrefix(l, "- Machine: ") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if strip(md) != strip(doc) {
		t.Errorf("the table made from the store differs from docs/tables/inference.md:\n%s", md)
	}
}
