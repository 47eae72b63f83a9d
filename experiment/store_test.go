package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nspda/nspda/train"
)

// TestStoreSkipsFinished: a finished run is not trained again.
func TestStoreSkipsFinished(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	cfg := small()
	if st := s.state(cfg.Key()); st != runMissing {
		t.Fatalf("empty store: state %v", st)
	}
	first, out, err := s.Run(context.Background(), cfg, nil)
	if err != nil || out != Trained {
		t.Fatalf("first run: %v, %v", out, err)
	}
	metrics := filepath.Join(s.RunDir(cfg.Key()), MetricsFile)
	before, _ := os.Stat(metrics)
	again, out, err := s.Run(context.Background(), cfg, func(train.Metrics, float64) { t.Error("trained again") })
	if err != nil || out != Skipped {
		t.Fatalf("second run: %v, %v", out, err)
	}
	after, _ := os.Stat(metrics)
	if !after.ModTime().Equal(before.ModTime()) {
		t.Error("a skipped run rewrote its metrics")
	}
	if same, field := sameSummary(first, again); !same {
		t.Errorf("stored summary differs in %s", field)
	}
}

// TestStoreResumesKilled: a grid killed mid-way finishes on the next pass,
// resuming started runs, skipping finished ones, and ending exactly like a
// grid that was never interrupted.
func TestStoreResumesKilled(t *testing.T) {
	var cfgs []Config
	for _, seed := range []uint64{1, 2, 3} {
		c := small()
		c.Seed = seed
		cfgs = append(cfgs, c)
	}
	whole := Store{Dir: t.TempDir()}
	for _, c := range cfgs {
		if _, _, err := whole.Run(context.Background(), c, nil); err != nil {
			t.Fatal(err)
		}
	}
	broken := Store{Dir: t.TempDir()}
	// Kill the second run after its third epoch, with the first finished.
	if _, _, err := broken.Run(context.Background(), cfgs[0], nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if _, _, err := broken.Run(ctx, cfgs[1], cancelAfter(3, cancel)); !errors.Is(err, context.Canceled) {
		t.Fatalf("killed run returned %v", err)
	}
	if st := broken.state(cfgs[1].Key()); st != runStarted {
		t.Fatalf("killed run in state %v", st)
	}
	want := []Outcome{Skipped, Resumed, Trained}
	for i, c := range cfgs {
		_, out, err := broken.Run(context.Background(), c, nil)
		if err != nil {
			t.Fatal(err)
		}
		if out != want[i] {
			t.Errorf("run %d: %v, want %v", i, out, want[i])
		}
		for _, f := range []string{MetricsFile, ModelFile} {
			a := read(t, filepath.Join(whole.RunDir(c.Key()), f))
			b := read(t, filepath.Join(broken.RunDir(c.Key()), f))
			if !bytes.Equal(a, b) {
				t.Errorf("run %d: %s differs from the uninterrupted grid's", i, f)
			}
		}
	}
}

// editSummary rewrites a run's summary.json through f.
func editSummary(t *testing.T, dir string, f func(*Summary)) {
	t.Helper()
	sum, err := ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	f(sum)
	b, _ := json.MarshalIndent(sum, "", " ")
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCollect: finished runs from several stores merge; equal summaries
// (wall time aside) are skipped, unfinished runs replaced, and differing
// summaries refused.
func TestCollect(t *testing.T) {
	c1, c2, c3 := small(), small(), small()
	c2.Seed, c3.Seed = 2, 3
	a, b, dst := Store{Dir: t.TempDir()}, Store{Dir: t.TempDir()}, Store{Dir: t.TempDir()}
	for _, run := range []struct {
		s Store
		c Config
	}{{a, c1}, {b, c1}, {b, c2}, {b, c3}} {
		if _, _, err := run.s.Run(context.Background(), run.c, nil); err != nil {
			t.Fatal(err)
		}
	}
	editSummary(t, b.RunDir(c1.Key()), func(s *Summary) { s.WallSeconds += 100 }) // another machine's speed
	// dst has c3 started but not finished.
	ctx, cancel := context.WithCancel(context.Background())
	dst.Run(ctx, c3, cancelAfter(2, cancel))
	rep, err := dst.Collect(a.Dir, b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Copied != 2 || rep.Replaced != 1 || rep.Identical != 1 || len(rep.Conflicts) != 0 {
		t.Fatalf("report %+v, want 2 copied (c1, c2), 1 replaced (c3), 1 identical (c1 again)", rep)
	}
	for _, c := range []Config{c1, c2, c3} {
		if !dst.Finished(c.Key()) {
			t.Errorf("seed %d not finished in the store", c.Seed)
		}
	}
	if !bytes.Equal(read(t, filepath.Join(dst.RunDir(c3.Key()), MetricsFile)), read(t, filepath.Join(b.RunDir(c3.Key()), MetricsFile))) {
		t.Error("the replaced run's metrics are not the collected run's")
	}
	// A conflict: same key, different results.
	editSummary(t, b.RunDir(c2.Key()), func(s *Summary) { s.TrainErrorPct += 1 })
	before := read(t, filepath.Join(dst.RunDir(c2.Key()), SummaryFile))
	rep, err = dst.Collect(b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Key != c2.Key() || rep.Conflicts[0].Field != "train_error_pct" || rep.Identical != 2 {
		t.Fatalf("report %+v, want one conflict on train_error_pct and two identical", rep)
	}
	if !bytes.Equal(before, read(t, filepath.Join(dst.RunDir(c2.Key()), SummaryFile))) {
		t.Error("a conflicting run overwrote the store's")
	}
}

// TestCollectRefusesForgedKey: a summary whose key is not its
// configuration's is reported as not collected, not silently merged.
func TestCollectRefusesForgedKey(t *testing.T) {
	src := Store{Dir: t.TempDir()}
	c := small()
	if _, _, err := src.Run(context.Background(), c, nil); err != nil {
		t.Fatal(err)
	}
	editSummary(t, src.RunDir(c.Key()), func(s *Summary) { s.Config.MaxEpochs++ })
	if rep, err := (Store{Dir: t.TempDir()}).Collect(src.Dir); err != nil || rep.Copied != 0 || len(rep.Failed) != 1 {
		t.Errorf("forged summary: %+v, %v; want it reported and not collected", rep, err)
	}
}

// TestPlanRoundTrip: a plan reads back as written, a configuration added
// twice is planned once, and a plan whose keys are not its configurations'
// is refused.
func TestPlanRoundTrip(t *testing.T) {
	cfgs := make([]Config, 4)
	for i := range cfgs {
		cfgs[i] = small()
		cfgs[i].MaxEpochs, cfgs[i].Seed = 3, uint64(i+1)
	}
	plan := Plan(nil).Add("noise", cfgs).Add("hints", cfgs[1:])
	if len(plan) != len(cfgs) {
		t.Fatalf("plan of the same runs twice has %d entries, want %d", len(plan), len(cfgs))
	}
	path := filepath.Join(t.TempDir(), "plan.jsonl")
	if err := plan.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadPlan(path)
	if err != nil {
		t.Fatal(err)
	}
	same := slices.EqualFunc(back, plan, func(a, b PlanEntry) bool {
		return a.Index == b.Index && a.Table == b.Table && a.Key == b.Key && a.Config.Key() == b.Key
	})
	if !same || back[3].Index != 3 || back[3].Table != "noise" {
		t.Error("plan changed on the way through its file")
	}
	b := read(t, path)
	os.WriteFile(path, bytes.Replace(b, []byte(`"max_epochs":3`), []byte(`"max_epochs":4`), 1), 0o644)
	if _, err := ReadPlan(path); err == nil {
		t.Error("a plan with a wrong key was read")
	}
}
