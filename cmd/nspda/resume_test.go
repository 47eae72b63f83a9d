package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/train"
)

// finishedRun trains cfg to the end in a new directory.
func finishedRun(t *testing.T, cfg experiment.Config) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := experiment.Train(context.Background(), cfg, dir, false, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestResumeFinishedRun: --resume on a finished run says so and rewrites
// nothing (it used to retrain from scratch).
func TestResumeFinishedRun(t *testing.T) {
	dir := finishedRun(t, smallConfig())
	before := snapshot(t, dir)
	out, errs, code := cli(t, "train", "--resume", dir)
	if code != 0 || !strings.Contains(out, "is finished; nothing to resume") || strings.Contains(out, "epoch   1/") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	after := snapshot(t, dir)
	for name, b := range before {
		if string(after[name]) != string(b) {
			t.Errorf("%s changed", name)
		}
	}
}

// TestRetrainRemovesOldResults: training again into a finished run's
// directory removes its summary and model before anything else, so that a
// kill midway leaves a resumable run, not an old summary beside new metrics.
func TestRetrainRemovesOldResults(t *testing.T) {
	cfg := smallConfig()
	dir := finishedRun(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg.Seed = 2
	experiment.Train(ctx, cfg, dir, false, func(_ train.Metrics, _ float64) { cancel() })
	for _, f := range []string{experiment.SummaryFile, experiment.ModelFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("an interrupted retraining left the old %s", f)
		}
	}
	if st, err := experiment.Status(dir); err != nil || st.Finished || st.Epoch != 1 {
		t.Errorf("status %+v, %v; want resumable after epoch 1", st, err)
	}
}

// TestResumePinsGrammar: a run on a PDA file keeps a copy of it; resuming
// from another directory, after the file was edited or removed, trains on
// the copy and says so.
func TestResumePinsGrammar(t *testing.T) {
	specDir := t.TempDir()
	spec, err := os.ReadFile(filepath.Join("..", "..", "grammar", "testdata", "anbn.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(specDir, "g.yaml"), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(specDir)
	cfg := smallConfig()
	cfg.Grammar = "g.yaml"
	dir := interrupted(t, cfg)
	if b, err := os.ReadFile(filepath.Join(dir, experiment.GrammarFile)); err != nil || string(b) != string(spec) {
		t.Fatalf("the run's copy of its spec: %v", err)
	}
	// A different language under the same name, then none at all.
	os.WriteFile("g.yaml", []byte("alphabet: [x]\nstart: q0\naccept: [q0]\ntransitions:\n  - [q0, x, any, q0, noop]\n"), 0o644)
	t.Chdir(t.TempDir())
	out, errs, code := cli(t, "train", "--resume", dir)
	if code != 0 || !strings.Contains(out, "resuming "+dir+" after epoch 1 of 3") || !strings.Contains(out, filepath.Join(dir, experiment.GrammarFile)) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	sum, err := experiment.ReadSummary(dir)
	if err != nil || sum.Sets[0].Strings == 0 {
		t.Fatalf("summary %+v, %v", sum, err)
	}
}

// TestDefaultRunDir: the default run directory is under runs/ and names a
// spec file by its base name.
func TestDefaultRunDir(t *testing.T) {
	for in, want := range map[string]string{"anbn": "nspda-anbn-", "/a/b/g.yaml": "nspda-g-", "../x.yaml": "nspda-x-", "..": "nspda-spec-", "a b/c d.yml": "nspda-c_d-"} {
		cfg := experiment.Defaults()
		cfg.Grammar = in
		got := defaultRunDir(cfg)
		if filepath.Dir(got) != "runs" || !strings.HasPrefix(filepath.Base(got), want) {
			t.Errorf("%q: %q, want runs/%s...", in, got, want)
		}
	}
}

// TestInterruptNamesResume: an interrupted train says how to continue.
func TestInterruptNamesResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var o, e strings.Builder
	code := run(ctx, []string{"train", "--quiet", "--max-epochs", "2", "--curriculum", "standard", "--out", dir}, strings.NewReader(""), &o, &e)
	if code != 1 || !strings.Contains(e.String(), "nspda train --resume "+dir) {
		t.Errorf("exit %d, stderr %q", code, e.String())
	}
}

// TestResumeDataFromAnotherDir: a run on data files given by relative
// paths resumes from another working directory (it used to fail: "open
// tr.jsonl: no such file or directory") and refuses a data file changed
// since it started rather than train on other data.
func TestResumeDataFromAnotherDir(t *testing.T) {
	dataDir := t.TempDir()
	t.Chdir(dataDir)
	for _, c := range [][2]string{{"train", "tr.jsonl"}, {"test60", "te.jsonl"}} {
		if _, errs, code := cli(t, "generate", "--grammar", "anbn", "--split", c[0], "--positives", "20", "--negatives", "20", "--out", c[1]); code != 0 {
			t.Fatal(errs)
		}
	}
	cfg, err := experiment.Recipe("data-serial") // one start at a time: no patience needed
	if err != nil {
		t.Fatal(err)
	}
	cfg.Grammar, cfg.Data, cfg.TestData, cfg.Tests = "", "tr.jsonl", []string{"te.jsonl"}, nil
	cfg = cfg.WithModel("elman") // no soft stack
	cfg.Hidden, cfg.Patience, cfg.Restarts, cfg.Probes, cfg.MaxEpochs, cfg.Size, cfg.SelectMax = 4, 0, 0, 0, 3, "", 0
	dir := interrupted(t, cfg)
	t.Chdir(t.TempDir())
	out, errs, code := cli(t, "train", "--resume", dir, "--quiet")
	if code != 0 || !strings.Contains(out, "relative paths read from "+dataDir) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if sum, err := experiment.ReadSummary(dir); err != nil || sum.Config.Data != "tr.jsonl" || sum.Key != cfg.Key() {
		t.Fatalf("summary %+v, %v; want the run's own config and key", sum, err)
	}
	// Changed between kill and resume: refused, not trained on.
	dir = interrupted(t, withDir(cfg, dataDir))
	os.WriteFile(filepath.Join(dataDir, "tr.jsonl"), []byte(`{"string": "ab", "label": 1}`+"\n"), 0o644)
	_, errs, code = cli(t, "train", "--resume", dir, "--quiet")
	if code != 1 || !strings.Contains(errs, "has changed since the run started") {
		t.Errorf("edited data: exit %d, stderr %q", code, errs)
	}
}

// withDir is cfg with its data paths made absolute under dir.
func withDir(cfg experiment.Config, dir string) experiment.Config {
	cfg.Data = filepath.Join(dir, cfg.Data)
	cfg.TestData = []string{filepath.Join(dir, cfg.TestData[0])}
	return cfg
}
