package curves

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPlot(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run1")
	os.Mkdir(run, 0o755)
	os.WriteFile(filepath.Join(run, "metrics.jsonl"), []byte(`{"epoch":1,"train_acc":50}
{"epoch":2,"train_acc":75.5}
`), 0o644)
	for _, ext := range []string{"png", "svg"} {
		out := filepath.Join(dir, "c."+ext)
		if err := Plot(out, "test", []string{run}); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(out); err != nil || st.Size() == 0 {
			t.Fatalf("%s not written: %v", out, err)
		}
	}
	os.WriteFile(filepath.Join(run, "metrics.jsonl"), []byte("{\"epoch\":1}\n{bad\n"), 0o644)
	if err := Plot(filepath.Join(dir, "x.png"), "", []string{run}); err == nil || !strings.Contains(err.Error(), "metrics.jsonl:2") {
		t.Fatalf("bad metrics: %v", err)
	}
}
