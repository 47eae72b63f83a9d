package experiment

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nspda/nspda/evaluate"
)

// FuzzRunFiles: whatever config.json and checkpoint.json a run directory
// holds, Status and the resume's reading of them give a valid result or a
// one-line error, without a panic.
func FuzzRunFiles(f *testing.F) {
	cfg, _ := json.Marshal(Defaults())
	f.Add(cfg, []byte(`{"epoch": 1, "params": [0.5], "curriculum": {}, "streams": {}}`))
	f.Add([]byte(strings.Replace(string(cfg), `"lr":0.1005000321`, `"lr":1e999`, 1)), []byte(`{"epoch": -1}`))
	f.Add([]byte(strings.Replace(string(cfg), `"refine":1`, `"refine":1000000000`, 1)), []byte(`[]`))
	f.Add([]byte(`{"grammar": "../x.yaml"}`), []byte(`{"epoch": "x"}`))
	f.Add(cfg[:len(cfg)/2], []byte(`{`))
	f.Fuzz(func(t *testing.T, config, checkpoint []byte) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, ConfigFile), config, 0o644)
		os.WriteFile(filepath.Join(dir, CheckpointFile), checkpoint, 0o644)
		_, err := Status(dir)
		oneLine(t, err)
		// The resume's reading, bounded as for a small network.
		_, err = readCheckpointFile(filepath.Join(dir, CheckpointFile), 1<<12)
		oneLine(t, err)
		if c, err := ReadConfig(dir); err == nil {
			oneLine(t, c.Validate())
		}
	})
}

// FuzzReadSummary: a summary.json reads or is refused with one line,
// without a panic, and one read has no more test sets than its
// configuration evaluates.
func FuzzReadSummary(f *testing.F) {
	cfg := Defaults()
	b, _ := json.Marshal(&Summary{Key: cfg.Key(), Config: cfg, Sets: make([]evaluate.Result, len(cfg.Tests))})
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte(strings.Replace(string(b), `"sets":[`, `"sets":[{},{},{},{},`, 1)))
	f.Add([]byte(`{"sets": [{}, {}], "config": {"tests": ["a"]}}`))
	f.Add([]byte(`{"key": 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, SummaryFile), data, 0o644)
		sum, err := ReadSummary(dir)
		oneLine(t, err)
		if err == nil && len(sum.Sets) > maxSets(sum.Config) {
			t.Fatalf("%d sets read for a configuration of %d", len(sum.Sets), maxSets(sum.Config))
		}
	})
}

// FuzzReadPlan: a plan file reads or is refused with one line.
func FuzzReadPlan(f *testing.F) {
	p := Plan(nil).Add("", []Config{Defaults()})
	b, _ := json.Marshal(p[0])
	f.Add(append(b, '\n'))
	f.Add([]byte(`{"index": 0, "key": "x", "config": {"lr": "NaN"}}`))
	f.Add([]byte(`{"index": 3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "plan.jsonl")
		os.WriteFile(path, data, 0o644)
		_, err := ReadPlan(path)
		oneLine(t, err)
	})
}

func oneLine(t *testing.T, err error) {
	t.Helper()
	if err != nil && (strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "Go value")) {
		t.Fatalf("error is not one user's line: %q", err)
	}
}
