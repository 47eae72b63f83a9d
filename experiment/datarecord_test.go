package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataPaths: a resumed run on data files reads relative paths from the
// directory it started in and checks them; a run without the record (of an
// earlier version) reads them as given; a damaged record is one line.
func TestDataPaths(t *testing.T) {
	origin, dir := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(origin, "tr.jsonl"), []byte(`{"string": "ab", "label": 1}`+"\n"), 0o644)
	cfg := Config{Data: "tr.jsonl"}
	if got, err := dataPaths(cfg, dir); err != nil || got.Data != "tr.jsonl" {
		t.Errorf("no record: %q, %v", got.Data, err)
	}
	t.Chdir(origin)
	if err := startFresh(dir, cfg, nil); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if got, err := dataPaths(cfg, dir); err != nil || got.Data != filepath.Join(origin, "tr.jsonl") {
		t.Errorf("with the record: %q, %v", got.Data, err)
	}
	for _, bad := range []string{`{"dir": 5}`, `{`, `[]`} {
		os.WriteFile(filepath.Join(dir, dataFile), []byte(bad), 0o644)
		_, err := dataPaths(cfg, dir)
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), dataFile) {
			t.Errorf("record %s: %v", bad, err)
		}
	}
}
