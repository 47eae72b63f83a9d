package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/internal/atomicfile"
	"github.com/nspda/nspda/internal/testutil"
)

// writeSummary writes a finished run of cfg with the given test results and
// returns its directory.
func writeSummary(t *testing.T, cfg Config, sets []evaluate.Result) string {
	t.Helper()
	dir := t.TempDir()
	if err := atomicfile.WriteJSON(filepath.Join(dir, SummaryFile), &Summary{Key: cfg.Key(), Config: cfg, Sets: sets}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReadSummaryBoundsValues: a summary of 200,000 empty test results
// (600 KB) is refused before they are decoded (it used to be accepted,
// having taken 24 bytes per byte of the file), and one of more results
// than its configuration evaluates, and extraSets, is refused.
func TestReadSummaryBoundsValues(t *testing.T) {
	cfg := Defaults()
	dir := writeSummary(t, cfg, nil)
	path := filepath.Join(dir, SummaryFile)
	b, _ := os.ReadFile(path)
	huge := strings.Replace(string(b), `"sets": null`, `"sets": [`+strings.Repeat("{},", 200_000)+`{}]`, 1)
	if huge == string(b) {
		t.Fatal("no sets field to fill")
	}
	if err := os.WriteFile(path, []byte(huge), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	got := testutil.Allocated(func() { _, err = ReadSummary(dir) })
	if err == nil || !strings.Contains(err.Error(), "values, more than the limit") {
		t.Errorf("ReadSummary = %v, want the values refused", err)
	}
	if budget := uint64(len(huge) + 1<<20); got > budget {
		t.Errorf("ReadSummary allocated %d KiB before refusing a %d KiB summary (budget %d KiB)", got>>10, len(huge)>>10, budget>>10)
	}

	sets := make([]evaluate.Result, len(cfg.Tests)+extraSets+1)
	_, err = ReadSummary(writeSummary(t, cfg, sets))
	if err == nil || !strings.Contains(err.Error(), "test sets, more than its configuration evaluates") {
		t.Errorf("ReadSummary of %d sets for %d tests = %v, want it refused", len(sets), len(cfg.Tests), err)
	}
	if _, err := ReadSummary(writeSummary(t, cfg, sets[1:])); err != nil {
		t.Errorf("ReadSummary of one set per test and %d more: %v", extraSets, err)
	}
	data := cfg
	data.Data, data.TestData = "train.jsonl", []string{"a.jsonl", "b.jsonl"}
	if _, err := ReadSummary(writeSummary(t, data, make([]evaluate.Result, 16+extraSets))); err != nil {
		t.Errorf("ReadSummary of 2 test files, their 14 bands and %d more: %v", extraSets, err)
	}
	if _, err := ReadSummary(writeSummary(t, data, make([]evaluate.Result, 17+extraSets))); err == nil {
		t.Errorf("ReadSummary of %d sets for 2 test files: accepted", 17+extraSets)
	}
}

// TestResumeBoundsCheckpoint: a checkpoint whose parameters are four
// million values, for a network of a few hundred, is refused on resume
// before they are decoded (32 MB, and twice that as the slice grew).
func TestResumeBoundsCheckpoint(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	cfg := small()
	ctx, cancel := context.WithCancel(context.Background())
	if _, _, err := s.Run(ctx, cfg, cancelAfter(2, cancel)); !errors.Is(err, context.Canceled) {
		t.Fatalf("killed run returned %v", err)
	}
	path := filepath.Join(s.RunDir(cfg.Key()), CheckpointFile)
	b := read(t, path)
	huge := strings.Replace(string(b), `"params": [`, `"params": [`+strings.Repeat("0,", 4<<20), 1)
	if huge == string(b) {
		t.Fatal("no params field to fill")
	}
	if err := os.WriteFile(path, []byte(huge), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	got := testutil.Allocated(func() { _, _, err = s.Run(context.Background(), cfg, nil) })
	if err == nil || !strings.Contains(err.Error(), "more than a checkpoint of this run's network can hold") || strings.Contains(err.Error(), "\n") {
		t.Errorf("resume = %v, want the checkpoint refused in one line", err)
	}
	// The resume builds the run's data and network (a few MiB) first.
	if budget := uint64(len(huge) + 16<<20); got > budget {
		t.Errorf("resume allocated %d MiB with a %d MiB checkpoint (budget %d MiB)", got>>20, len(huge)>>20, budget>>20)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, out, err := s.Run(context.Background(), cfg, nil); err != nil || out != Resumed {
		t.Errorf("resume from the real checkpoint: %v, %v", out, err)
	}
}

// TestReadConfigBoundsValues: a config.json of 300,000 empty test names
// (900 KB; 16 bytes each once decoded, and twice that as the slice grew) is
// refused before they are decoded.
func TestReadConfigBoundsValues(t *testing.T) {
	dir := t.TempDir()
	b, _ := json.Marshal(Defaults())
	huge := strings.Replace(string(b), `"tests":[`, `"tests":[`+strings.Repeat(`"",`, 300_000), 1)
	if huge == string(b) {
		t.Fatal("no tests field to fill")
	}
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(huge), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	got := testutil.Allocated(func() { _, err = ReadConfig(dir) })
	if err == nil || !strings.Contains(err.Error(), "values, more than the limit") {
		t.Errorf("ReadConfig = %v, want the values refused", err)
	}
	if budget := uint64(len(huge) + 1<<20); got > budget {
		t.Errorf("ReadConfig allocated %d KiB before refusing a %d KiB config (budget %d KiB)", got>>10, len(huge)>>10, budget>>10)
	}
}

// TestReadPlanBoundsEntries: a plan entry of 100,000 empty test names is
// refused before they are decoded.
func TestReadPlanBoundsEntries(t *testing.T) {
	b, _ := json.Marshal(Plan(nil).Add("", []Config{Defaults()})[0])
	huge := strings.Replace(string(b), `"tests":[`, `"tests":[`+strings.Repeat(`"",`, 100_000), 1)
	if huge == string(b) {
		t.Fatal("no tests field to fill")
	}
	path := filepath.Join(t.TempDir(), "plan.jsonl")
	if err := os.WriteFile(path, []byte(huge+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	got := testutil.Allocated(func() { _, err = ReadPlan(path) })
	if err == nil || !strings.Contains(err.Error(), "plan.jsonl:1: ") || !strings.Contains(err.Error(), "values, more than the limit") {
		t.Errorf("ReadPlan = %v, want line 1's values refused", err)
	}
	if budget := uint64(2*len(huge) + 2<<20); got > budget {
		t.Errorf("ReadPlan allocated %d KiB before refusing a %d KiB plan (budget %d KiB)", got>>10, len(huge)>>10, budget>>10)
	}
	if _, err := ReadPlan(writePlanLine(t, b)); err != nil {
		t.Errorf("ReadPlan of a real entry: %v", err)
	}
}

func writePlanLine(t *testing.T, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.jsonl")
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
