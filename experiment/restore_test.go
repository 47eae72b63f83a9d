package experiment

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRestore: a finished run whose model.json was removed gets back the
// same bytes; one that still has it is left alone; a run whose stored
// metrics do not match its training again is refused, and keeps no weights.
func TestRestore(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	cfg := small()
	if _, _, err := s.Run(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	key := cfg.Key()
	model := filepath.Join(s.RunDir(key), ModelFile)
	want := read(t, model)
	if _, err := s.Restore(context.Background(), key, t.TempDir(), nil); !errors.Is(err, ErrHasModel) {
		t.Fatalf("run with its model: %v, want ErrHasModel", err)
	}
	if err := os.Remove(model); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Restore(context.Background(), key, t.TempDir(), nil); err != nil {
		t.Fatal(err)
	}
	if got := read(t, model); !bytes.Equal(got, want) {
		t.Fatal("restored model.json differs from the one the run wrote")
	}

	os.Remove(model)
	metrics := filepath.Join(s.RunDir(key), MetricsFile)
	m := read(t, metrics)
	lines := bytes.SplitAfter(m, []byte("\n"))
	lines[1] = bytes.Replace(lines[1], []byte(`"loss":`), []byte(`"loss":1`), 1)
	if err := os.WriteFile(metrics, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := s.Restore(context.Background(), key, t.TempDir(), nil)
	if err == nil || !strings.Contains(err.Error(), "metrics.jsonl differs from the stored one at line 2") {
		t.Fatalf("tampered metrics: %v", err)
	}
	if _, err := os.Stat(model); err == nil {
		t.Error("a refused restore wrote model.json")
	}
	if _, err := s.Restore(context.Background(), "0000000000000000", t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "has no finished run") {
		t.Errorf("missing run: %v", err)
	}
}
