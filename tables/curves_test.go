package tables

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runWithMetrics makes a run directory, run1 in a new temporary directory,
// whose metrics.jsonl holds metrics; it returns both directories.
func runWithMetrics(t *testing.T, metrics string) (dir, run string) {
	t.Helper()
	dir = t.TempDir()
	run = filepath.Join(dir, "run1")
	if err := os.Mkdir(run, 0o755); err != nil {
		t.Fatal(err)
	}
	writeMetrics(t, run, metrics)
	return dir, run
}

// writeMetrics writes the run directory run's metrics.jsonl.
func writeMetrics(t *testing.T, run, metrics string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(run, "metrics.jsonl"), []byte(metrics), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPlotCurvesCurves(t *testing.T) {
	dir, run := runWithMetrics(t, `{"epoch":1,"train_acc":50}
{"epoch":2,"train_acc":75.5}
`)
	for _, ext := range []string{"png", "svg"} {
		out := filepath.Join(dir, "c."+ext)
		if err := PlotCurves(out, "test", []string{run}); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(out); err != nil || st.Size() == 0 {
			t.Fatalf("%s not written: %v", out, err)
		}
	}
	writeMetrics(t, run, "{\"epoch\":1}\n{bad\n")
	if err := PlotCurves(filepath.Join(dir, "x.png"), "", []string{run}); err == nil || !strings.Contains(err.Error(), "metrics.jsonl:2") {
		t.Fatalf("bad metrics: %v", err)
	}
}

// TestPlotAtomic: an unsupported format writes nothing (it used to leave an
// empty file), and a failed plot leaves an existing figure as it was and no
// temporary file.
func TestPlotCurvesAtomic(t *testing.T) {
	dir, run := runWithMetrics(t, "{\"epoch\":1,\"train_acc\":50}\n")
	txt := filepath.Join(dir, "c.txt")
	if err := PlotCurves(txt, "", []string{run}); err == nil || !strings.Contains(err.Error(), "unsupported format") {
		t.Errorf("c.txt: %v", err)
	}
	if _, err := os.Stat(txt); err == nil {
		t.Errorf("an unsupported format left %s", txt)
	}
	png := filepath.Join(dir, "c.png")
	os.WriteFile(png, []byte("old"), 0o644)
	if err := PlotCurves(png, "", []string{run, filepath.Join(dir, "missing")}); err == nil {
		t.Fatal("a missing run directory plotted")
	}
	if b, _ := os.ReadFile(png); string(b) != "old" {
		t.Errorf("a failed plot changed the existing figure")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}
