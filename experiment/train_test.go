package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/train"
)

// small is a configuration that trains in well under a second.
func small() Config {
	c := Defaults()
	c.Positives, c.Negatives = 60, 60
	c.MaxEpochs = 6
	c.Curriculum = "standard"
	c.Algo = "bptt"
	c.Tests = []string{"test60"}
	return c
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSameSeedSameMetrics: two runs of one configuration write identical
// metrics.jsonl and model.json; another seed writes different ones.
func TestSameSeedSameMetrics(t *testing.T) {
	for _, algo := range []string{"bptt", "uoro"} {
		cfg := small()
		cfg.Algo = algo
		cfg.Noise = 15
		dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
		for i, d := range dirs {
			c := cfg
			if i == 2 {
				c.Seed = 2
			}
			if _, err := Train(context.Background(), c, d, false, nil); err != nil {
				t.Fatal(err)
			}
		}
		m0, m1, m2 := read(t, filepath.Join(dirs[0], MetricsFile)), read(t, filepath.Join(dirs[1], MetricsFile)), read(t, filepath.Join(dirs[2], MetricsFile))
		if !bytes.Equal(m0, m1) {
			t.Errorf("%s: same seed, different metrics.jsonl", algo)
		}
		if bytes.Equal(m0, m2) {
			t.Errorf("%s: different seeds, same metrics.jsonl", algo)
		}
		if !bytes.Equal(read(t, filepath.Join(dirs[0], ModelFile)), read(t, filepath.Join(dirs[1], ModelFile))) {
			t.Errorf("%s: same seed, different model.json", algo)
		}
		if n := bytes.Count(m0, []byte("\n")); n != cfg.MaxEpochs {
			t.Errorf("%s: %d metric lines for %d epochs", algo, n, cfg.MaxEpochs)
		}
	}
}

// cancelAfter is a Progress that cancels the run after n epochs.
func cancelAfter(n int, cancel context.CancelFunc) Progress {
	return func(m train.Metrics, _ float64) {
		if m.Epoch == n {
			cancel()
		}
	}
}

// TestResume: a run killed after its third epoch and resumed ends exactly
// like a run that was never interrupted.
func TestResume(t *testing.T) {
	for _, cur := range []string{"standard", "2il"} {
		cfg := small()
		cfg.Curriculum = cur
		cfg.Noise = 15
		whole, broken := t.TempDir(), t.TempDir()
		if _, err := Train(context.Background(), cfg, whole, false, nil); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		_, err := Train(ctx, cfg, broken, false, cancelAfter(3, cancel))
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: interrupted run returned %v", cur, err)
		}
		if n := bytes.Count(read(t, filepath.Join(broken, MetricsFile)), []byte("\n")); n != 3 {
			t.Fatalf("%s: %d metric lines after 3 epochs", cur, n)
		}
		if !bytes.Contains(read(t, filepath.Join(broken, timingFile)), []byte(`"wall":`)) {
			t.Fatalf("%s: timing lines without the run's wall seconds", cur)
		}
		interrupted := broken
		// Pretend the first session's three epochs took 1000 s each:
		// wall_seconds counts every session's epochs, not the last one's
		// only; from lines that give the run's wall time (a portfolio's,
		// whose starts ran side by side: 3000 s of epochs in 1800 s), the
		// last line's.
		for _, tc := range []struct {
			lines string
			want  float64
		}{
			{strings.Repeat("{\"epoch\":0,\"seconds\":1000}\n", 3), 3000},
			{"{\"epoch\":0,\"seconds\":1000,\"wall\":1000}\n{\"epoch\":0,\"seconds\":1000,\"wall\":1200}\n{\"epoch\":0,\"seconds\":1000,\"wall\":1800}\n", 1800},
		} {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(interrupted)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, timingFile), []byte(tc.lines), 0o644); err != nil {
				t.Fatal(err)
			}
			sum, err := Train(context.Background(), Config{}, dir, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			if sum.WallSeconds < tc.want || sum.WallSeconds > tc.want+600 {
				t.Errorf("%s: resumed run's wall_seconds %g, want %g for the first session plus this one's", cur, sum.WallSeconds, tc.want)
			}
			broken = dir
		}
		for _, f := range []string{MetricsFile, ModelFile} {
			if !bytes.Equal(read(t, filepath.Join(whole, f)), read(t, filepath.Join(broken, f))) {
				t.Errorf("%s: resumed run's %s differs from the uninterrupted run's", cur, f)
			}
		}
	}
}

// TestResumeDropsEpochInFlight: metrics written after the last checkpoint
// (an epoch killed mid-write) are cut back on resume.
func TestResumeDropsEpochInFlight(t *testing.T) {
	cfg := small()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	Train(ctx, cfg, dir, false, cancelAfter(2, cancel))
	f, err := os.OpenFile(filepath.Join(dir, MetricsFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"epoch":3,"partial`)
	f.Close()
	if _, err := Train(context.Background(), Config{}, dir, true, nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(read(t, filepath.Join(dir, MetricsFile)))), "\n")
	if len(lines) != cfg.MaxEpochs {
		t.Fatalf("%d lines, want %d", len(lines), cfg.MaxEpochs)
	}
	for i, l := range lines {
		var m train.Metrics
		if err := json.Unmarshal([]byte(l), &m); err != nil || m.Epoch != i+1 {
			t.Fatalf("line %d: %q", i+1, l)
		}
	}
}

// TestNonFiniteStops: a diverging run stops with a message naming what
// went wrong, not silently. Each of the driver's two checks is provoked on
// its own: a step so large that a weight overflows (SGD's check), and a
// step that leaves the weights finite but so large that a later string's
// loss is not (the loss check).
func TestNonFiniteStops(t *testing.T) {
	for _, tc := range []struct {
		name       string
		lr, clip   float64
		curriculum string
		want, not  *regexp.Regexp
	}{
		{"weight", math.MaxFloat64, 0, "", regexp.MustCompile(`^epoch 1, string \d+ of \d+: parameter \d+ became [+-]Inf; stopping$`), regexp.MustCompile(`loss`)},
		{"loss", 1e307, 0, "", regexp.MustCompile(`^epoch 1, string \d+ of \d+: loss is (NaN|[+-]Inf); stopping$`), regexp.MustCompile(`parameter`)},
		// Every string's loss finite, their sum not.
		{"summed loss", 1e307, 1, "il", regexp.MustCompile(`^epoch \d+: the epoch's summed loss is (NaN|[+-]Inf); stopping$`), regexp.MustCompile(`parameter|string`)},
	} {
		cfg := small()
		cfg.LR = tc.lr
		if tc.clip > 0 {
			cfg.Clip = tc.clip
		}
		if tc.curriculum != "" {
			cfg.Curriculum = tc.curriculum
		}
		dir := t.TempDir()
		_, err := Train(context.Background(), cfg, dir, false, nil)
		if err == nil || !tc.want.MatchString(err.Error()) || tc.not.MatchString(err.Error()) {
			t.Errorf("%s: diverging run returned %v; want %v", tc.name, err, tc.want)
		}
		for _, f := range []string{ModelFile, SummaryFile} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				t.Errorf("%s: a stopped run wrote %s", tc.name, f)
			}
		}
	}
}

func TestSummary(t *testing.T) {
	dir := t.TempDir()
	cfg := small()
	sum, err := Train(context.Background(), cfg, dir, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	var disk Summary
	if err := json.Unmarshal(read(t, filepath.Join(dir, SummaryFile)), &disk); err != nil {
		t.Fatal(err)
	}
	if disk.Epochs != sum.Epochs || len(disk.Sets) != 1 || disk.Sets[0].Name != "test60" || disk.Sets[0].Strings == 0 {
		t.Errorf("summary.json = %+v", disk)
	}
	if disk.Converged != (disk.CharsToConverge != nil) {
		t.Errorf("converged %v but chars_to_converge %v", disk.Converged, disk.CharsToConverge)
	}
}

// TestKeepBest: keep-best changes which weights a run ends with, never its
// training (same metrics.jsonl); the weights it keeps are those of the
// selected epoch (a run stopped at that epoch saves the same model.json);
// no epoch classifies the validation set better than the selected one; a
// resumed keep-best run ends like an uninterrupted one; and a configuration
// without it keeps the key it had before the option existed.
func TestKeepBest(t *testing.T) {
	cfg := small()
	cfg.MaxEpochs = 8
	cfg.Positives, cfg.Negatives = 400, 400
	cfg.Noise = 15
	plain, best := t.TempDir(), t.TempDir()
	if _, err := Train(context.Background(), cfg, plain, false, nil); err != nil {
		t.Fatal(err)
	}
	kb := cfg
	kb.KeepBest = true
	sum, err := Train(context.Background(), kb, best, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(read(t, filepath.Join(plain, MetricsFile)), read(t, filepath.Join(best, MetricsFile))) {
		t.Fatal("keep-best changed the training's metrics")
	}
	// With these settings the last epoch is not the best (checked below), so
	// the test sees the selection at work.
	if sum.SelectedEpoch < 1 || sum.SelectedEpoch >= kb.MaxEpochs {
		t.Fatalf("selected epoch %d of %d", sum.SelectedEpoch, kb.MaxEpochs)
	}
	lang, err := grammar.Load(cfg.Grammar)
	if err != nil {
		t.Fatal(err)
	}
	valid, err := dataset.GenerateSplit(lang, "valid", cfg.DataSeed)
	if err != nil {
		t.Fatal(err)
	}
	validErrors := func(dir string) int {
		m, refine, err := model.Load(filepath.Join(dir, ModelFile))
		if err != nil {
			t.Fatal(err)
		}
		r, err := evaluate.Run("valid", model.Classifier(m, refine), lang.PDA, valid)
		if err != nil {
			t.Fatal(err)
		}
		return r.Errors
	}
	kept := validErrors(best)
	for e := 1; e <= kb.MaxEpochs; e++ {
		c := cfg
		c.MaxEpochs = e
		dir := t.TempDir()
		if _, err := Train(context.Background(), c, dir, false, nil); err != nil {
			t.Fatal(err)
		}
		if n := validErrors(dir); n < kept {
			t.Errorf("epoch %d: %d validation errors, the kept epoch %d has %d", e, n, sum.SelectedEpoch, kept)
		}
		if e == sum.SelectedEpoch && !bytes.Equal(read(t, filepath.Join(dir, ModelFile)), read(t, filepath.Join(best, ModelFile))) {
			t.Errorf("the kept weights are not those of epoch %d", e)
		}
	}
	broken := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := Train(ctx, kb, broken, false, cancelAfter(3, cancel)); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run returned %v", err)
	}
	if _, err := Train(context.Background(), Config{}, broken, true, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(read(t, filepath.Join(broken, ModelFile)), read(t, filepath.Join(best, ModelFile))) {
		t.Error("a resumed keep-best run kept other weights")
	}
	b, _ := json.Marshal(cfg)
	if bytes.Contains(b, []byte("keep_best")) {
		t.Errorf("a configuration without keep-best names it: %s", b)
	}
}
