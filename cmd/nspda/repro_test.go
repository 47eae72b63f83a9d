package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/tables"
)

// TestReproQuickAll runs every table's --quick grid into a fresh store,
// checks the files, then regenerates them with --tables-only and checks
// that nothing was trained and every byte is the same.
func TestReproQuickAll(t *testing.T) {
	if testing.Short() {
		t.Skip("trains every quick grid (about a minute on 2 cores); go test without -short, as .ci/run runs it, includes it")
	}
	dir := t.TempDir()
	store, out := filepath.Join(dir, "store"), filepath.Join(dir, "tables")
	args := []string{"repro", "all", "--quick", "--store", store, "--out", out, "--workers", "2"}
	stdout, stderr, code := cli(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The learning, ablation and inference tables are ours: the paper has
	// no number for their cells. The learning table's history, the
	// ablation and the inference table are drawn nowhere.
	ours := map[string]bool{"learning": true, "learning-history": true, "ablation": true, "inference": true}
	for _, name := range tables.Names() {
		files := []string{".md", ".csv", "-bars.png", "-bars.svg", "-lengths.png", "-lengths.svg"}
		if name == "learning-history" || name == "ablation" || name == "inference" {
			files = files[:2]
		}
		for _, f := range files {
			if _, err := os.Stat(filepath.Join(out, name+f)); err != nil {
				t.Errorf("%s%s: %v", name, f, err)
			}
		}
		md := readFile(t, filepath.Join(out, name+".md"))
		if strings.Contains(md, "not run yet") || strings.Contains(md, "paper: ") == ours[name] || !strings.Contains(md, "Command: `nspda repro all --out=") {
			t.Errorf("%s.md:\n%s", name, md)
		}
	}
	index := readFile(t, filepath.Join(out, "index.md"))
	for _, name := range tables.Names() {
		if !strings.Contains(index, "("+name+".md)") {
			t.Errorf("index.md does not link %s.md", name)
		}
	}
	if !strings.Contains(stdout, "trained") {
		t.Errorf("stdout:\n%s", stdout)
	}
	before := snapshot(t, out)
	again := append(args[:len(args):len(args)], "--tables-only")
	if _, stderr, code := cli(t, again...); code != 0 {
		t.Fatalf("tables-only: exit %d: %s", code, stderr)
	}
	// The command line differs (--tables-only), so compare without it.
	after := snapshot(t, out)
	for name, b := range before {
		a := after[name]
		if strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".csv") {
			a = bytes.ReplaceAll(a, []byte(" --tables-only --workers"), []byte(" --workers"))
		}
		if !bytes.Equal(a, b) && !strings.HasSuffix(name, ".png") && !strings.HasSuffix(name, ".svg") {
			t.Errorf("%s changed when regenerated from the store:\n%s\n---\n%s", name, b, a)
		}
	}
	// Rerunning the grid trains nothing.
	stdout, _, code = cli(t, "repro", "noise", "--quick", "--store", store, "--out", out, "--workers", "2")
	if code != 0 || strings.Contains(stdout, "trained") || !strings.Contains(stdout, "skipped") {
		t.Errorf("rerun: exit %d:\n%s", code, stdout)
	}
}

// TestFiguresDeterministic: the same command writes the same bytes.
func TestFiguresDeterministic(t *testing.T) {
	dir := t.TempDir()
	args := []string{"repro", "programmed", "--quick", "--store", filepath.Join(dir, "s"), "--out", filepath.Join(dir, "o")}
	var snaps []map[string][]byte
	for range 2 {
		if _, stderr, code := cli(t, args...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		snaps = append(snaps, snapshot(t, filepath.Join(dir, "o")))
	}
	if len(snaps[0]) < 6 {
		t.Fatalf("%d files written", len(snaps[0]))
	}
	for name, b := range snaps[0] {
		if !bytes.Equal(b, snaps[1][name]) {
			t.Errorf("%s differs between two identical commands", name)
		}
	}
}

// TestPlanRunCollect: a plan's entries run one by one into two stores
// (two "machines"), are collected into one, and the table is made from it
// without training.
func TestPlanRunCollect(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.jsonl")
	stdout, stderr, code := cli(t, "repro", "noise", "--quick", "--plan", plan)
	if code != 0 || !strings.Contains(stdout, "wrote 16 runs") {
		t.Fatalf("plan: exit %d: %s%s", code, stdout, stderr)
	}
	if n := strings.Count(readFile(t, plan), "\n"); n != 16 {
		t.Fatalf("plan has %d lines", n)
	}
	for i := range 16 {
		store := filepath.Join(dir, "machine"+strconv.Itoa(i%2))
		if _, stderr, code := cli(t, "run", "--plan", plan, "--index", strconv.Itoa(i), "--store", store); code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, stderr)
		}
	}
	stdout, _, code = cli(t, "run", "--plan", plan, "--index", "0", "--store", filepath.Join(dir, "machine0"))
	if code != 0 || !strings.HasPrefix(stdout, "[0] skipped") {
		t.Errorf("second run of index 0: exit %d: %q", code, stdout)
	}
	final := filepath.Join(dir, "results")
	stdout, stderr, code = cli(t, "collect", "--from", filepath.Join(dir, "machine0"), "--from", filepath.Join(dir, "machine1"), "--store", final)
	if code != 0 || !strings.Contains(stdout, "16 new") {
		t.Fatalf("collect: exit %d: %s%s", code, stdout, stderr)
	}
	out := filepath.Join(dir, "tables")
	stdout, stderr, code = cli(t, "repro", "noise", "--quick", "--tables-only", "--no-figures", "--store", final, "--out", out)
	if code != 0 || strings.Contains(readFile(t, filepath.Join(out, "noise.md")), "not run yet") {
		t.Fatalf("tables-only: exit %d: %s%s", code, stdout, stderr)
	}
	// A conflicting result from a third machine is refused, exit 1.
	m := filepath.Join(dir, "machine0")
	entries, _ := os.ReadDir(m)
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			path := filepath.Join(m, e.Name(), experiment.SummaryFile)
			b := []byte(readFile(t, path))
			os.WriteFile(path, bytes.Replace(b, []byte(`"epochs": 3`), []byte(`"epochs": 2`), 1), 0o644)
			break
		}
	}
	_, stderr, code = cli(t, "collect", m, "--store", final)
	if code != 1 || !strings.Contains(stderr, "1 runs not collected") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("conflicting collect: exit %d: %q", code, stderr)
	}
}

// TestEmitSlurm: the script covers the plan and runs this binary by default.
func TestEmitSlurm(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := cli(t, "repro", "incremental", "--quick", "--emit-slurm", dir, "--store", filepath.Join(dir, "r"), "--binary", "/opt/nspda", "--slurm-option=--time=10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	script := readFile(t, filepath.Join(dir, "incremental.sbatch"))
	for _, want := range []string{"#SBATCH --array=0-23\n", "#SBATCH --time=10\n", "'/opt/nspda' run --plan '" + filepath.Join(dir, "incremental.plan.jsonl") + "'"} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	if !strings.Contains(stdout, "sbatch "+filepath.Join(dir, "incremental.sbatch")) {
		t.Errorf("stdout: %s", stdout)
	}
	if _, _, code := cli(t, "repro", "programmed", "--emit-slurm", dir); code != 1 {
		t.Errorf("programmed --emit-slurm: exit %d, want 1 (nothing to train)", code)
	}
}

// TestReproFairPhases: the fair table's plan holds its search trials until
// they are in the store, then the seeds of the selected settings; the data
// recipe's two rows, which have no search, are in both.
func TestReproFairPhases(t *testing.T) {
	dir := t.TempDir()
	store, plan := filepath.Join(dir, "store"), filepath.Join(dir, "plan.jsonl")
	trials := 15 * 5 * tables.FairQuickTrials
	const data = 2 * 5 // the data recipe's rows: five languages, one seed with --quick
	stdout, stderr, code := cli(t, "repro", "fair", "--quick", "--plan", plan, "--store", store)
	if code != 0 || !strings.Contains(stdout, "wrote "+strconv.Itoa(trials+data)+" runs") || !strings.Contains(stdout, "phase 1 for "+strconv.Itoa(trials)+" search trials") {
		t.Fatalf("phase 1 plan: exit %d: %s%s", code, stdout, stderr)
	}
	slurm := filepath.Join(dir, "slurm")
	if stdout, _, code := cli(t, "repro", "fair", "--quick", "--emit-slurm", slurm, "--store", store, "--binary", "/opt/nspda"); code != 0 ||
		!strings.Contains(stdout, "then: the same command again, for the second phase") || !strings.Contains(readFile(t, filepath.Join(slurm, "fair.sbatch")), "--array=0-"+strconv.Itoa(trials+data-1)+"\n") {
		t.Errorf("phase 1 emit-slurm: exit %d: %s", code, stdout)
	}
	// Its table before any trial has finished: every search pending.
	out := filepath.Join(dir, "tables")
	if _, stderr, code := cli(t, "repro", "fair", "--quick", "--tables-only", "--store", store, "--out", out); code != 0 ||
		!strings.Contains(readFile(t, filepath.Join(out, "fair.md")), "anbn: search 0/2 trials finished") {
		t.Fatalf("tables before the search: exit %d: %s", code, stderr)
	}
	p, err := experiment.ReadPlan(plan)
	if err != nil {
		t.Fatal(err)
	}
	// Every trial finished (made up: no test set, a select accuracy); the
	// data recipe's runs, which evaluate the test sets, left to phase 2.
	seeds := 0
	for _, e := range p {
		if len(e.Config.Tests) != 0 {
			seeds++
			if e.Config.Probes == 0 || e.Config.Hidden != 0 {
				t.Fatalf("%s evaluates %v, and is not a run of the data recipe: %+v", e.Key, e.Config.Tests, e.Config)
			}
			continue
		}
		run := filepath.Join(store, e.Key)
		os.MkdirAll(run, 0o755)
		cfg, _ := json.Marshal(e.Config)
		sum, _ := json.Marshal(experiment.Summary{Key: e.Key, Config: e.Config, Epochs: 1, SelectedEpoch: 1, TrainErrorPct: 50})
		for name, b := range map[string][]byte{experiment.ConfigFile: cfg, experiment.MetricsFile: []byte(`{"epoch":1,"select_acc":50}` + "\n"), experiment.SummaryFile: sum} {
			if err := os.WriteFile(filepath.Join(run, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if seeds != data {
		t.Fatalf("%d runs with test sets in phase 1, want the data recipe's %d", seeds, data)
	}
	stdout, stderr, code = cli(t, "repro", "fair", "--quick", "--plan", plan, "--store", store)
	if code != 0 || !strings.Contains(stdout, "wrote "+strconv.Itoa(75+data)+" runs") || strings.Contains(stdout, "phase 1") {
		t.Fatalf("phase 2 plan: exit %d: %s%s", code, stdout, stderr)
	}
	if p, err = experiment.ReadPlan(plan); err != nil || len(p[0].Config.Tests) == 0 || p[0].Config.Seed != 1 {
		t.Fatalf("phase 2 plan: %v, first entry %+v", err, p[0].Config)
	}
}

func TestReproUsage(t *testing.T) {
	for _, args := range [][]string{
		{"repro"},
		{"repro", "table9"},
		{"repro", "noise", "--seeds", "0"},
		{"repro", "noise", "--workers", "0"},
		{"repro", "noise", "--plan", "p", "--emit-slurm", "d"},
		{"repro", "noise", "--tables-only", "--plan", "p"},
		{"run", "--index", "1"},
		{"run", "--plan", "p"},
		{"collect"},
	} {
		_, errs, code := cli(t, args...)
		if code != 2 || !strings.HasPrefix(errs, "nspda: ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line", args, code, errs)
		}
	}
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.jsonl")
	// --seeds is bounded (limits.Seeds): 10^9 used to run out of memory
	// building the grid, with a stack trace.
	if _, errs, code := cli(t, "repro", "noise", "--quick", "--seeds", "1001", "--plan", plan); code != 2 || !strings.Contains(errs, "more than the limit of 1000") {
		t.Errorf("--seeds 1001: exit %d, stderr %q", code, errs)
	}
	cli(t, "repro", "noise", "--quick", "--plan", plan)
	// An index beyond the plan is a flag out of range: a usage error.
	if _, errs, code := cli(t, "run", "--plan", plan, "--index", "16"); code != 2 || !strings.Contains(errs, "--index must be from 0 to 15") {
		t.Errorf("index out of range: exit %d, %q", code, errs)
	}
	// An interrupted task says how to resume, in one line, exit 1.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	args := []string{"run", "--plan", plan, "--index", "0", "--store", filepath.Join(dir, "store")}
	if code := run(ctx, args, strings.NewReader(""), &out, &errb); code != 1 || !strings.Contains(errb.String(), "interrupted: run the same command again to resume") || strings.Count(errb.String(), "\n") != 1 {
		t.Errorf("interrupted run: exit %d, stderr %q", code, errb.String())
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// snapshot reads every file of dir.
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string][]byte)
	for _, e := range entries {
		out[e.Name()] = []byte(readFile(t, filepath.Join(dir, e.Name())))
	}
	return out
}

// TestReproSeedsPerTable: without --seeds each table has its own number of
// seeds (the ablation three, the others five), so that `repro all
// --tables-only` remakes each committed table as it was made; --seeds sets
// every table's.
func TestReproSeedsPerTable(t *testing.T) {
	for _, c := range []struct {
		given bool
		want  map[string]int
	}{
		{false, map[string]int{"ablation": 3, "learning": 5, "hints": 5}},
		{true, map[string]int{"ablation": 2, "learning": 2, "hints": 2}},
	} {
		f := &reproFlags{seeds: 2, seedsGiven: c.given}
		ts, err := reproTables("all", f.options)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range ts {
			want, ok := c.want[tb.Name]
			if !ok {
				continue
			}
			if got := len(tb.Cells[0][0].Configs); got != want {
				t.Errorf("--seeds given %v: %s has %d seeds a cell, want %d", c.given, tb.Name, got, want)
			}
		}
	}
}

// TestReproInference: the inference table plans its 70 runs (the 50
// data-only runs of the learning table and 20 on PDA files), emits them
// for Slurm, and is written from an empty store without training, each
// line saying that none of its runs has finished.
func TestReproInference(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	stdout, stderr, code := cli(t, "repro", "inference", "--plan", filepath.Join(dir, "p.jsonl"), "--store", store)
	if code != 0 || !strings.Contains(stdout, "wrote 70 runs") {
		t.Fatalf("plan: exit %d: %s%s", code, stdout, stderr)
	}
	if !strings.Contains(readFile(t, filepath.Join(dir, "p.jsonl")), `"grammar":"tables/languages/anb2n.yaml"`) {
		t.Error("the plan has no run on the PDA file anb2n.yaml")
	}
	stdout, stderr, code = cli(t, "repro", "inference", "--emit-slurm", filepath.Join(dir, "slurm"), "--store", store)
	if code != 0 || !strings.Contains(stdout, "(70 runs)") || !strings.Contains(stdout, "nspda repro inference --tables-only") {
		t.Fatalf("emit-slurm: exit %d: %s%s", code, stdout, stderr)
	}
	out := filepath.Join(dir, "tables")
	stdout, stderr, code = cli(t, "repro", "inference", "--tables-only", "--store", store, "--out", out)
	if code != 0 || strings.Contains(stdout, "trained") {
		t.Fatalf("tables-only: exit %d: %s%s", code, stdout, stderr)
	}
	md := readFile(t, filepath.Join(out, "inference.md"))
	if strings.Count(md, "– (0/5 finished)") != 14 || !strings.Contains(md, "| anb2n (PDA file) | 2 (M1) |") {
		t.Errorf("inference.md:\n%s", md)
	}
}
