package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/train"
)

// TestTrainRefusesInapplicable: an option the model does not have is a
// usage error naming it, not silently ignored.
func TestTrainRefusesInapplicable(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "lstm", "--opt", "stacks=3"}, "stacks"},
		{[]string{"--model", "gru", "--opt", "rounding=true"}, "rounding"},
		{[]string{"--model", "nnpda", "--opt", "rounding=true"}, "rounding"},
		{[]string{"--opt", "rounding=true"}, "rounding"},
		{[]string{"--model", "elman", "--noise", "15"}, "noise"},
		{[]string{"--model", "lstm", "--order", "3"}, "--order"},
		{[]string{"--model", "stack-rnn", "--order", "2"}, "--order"},
		{[]string{"--model", "second-order", "--order", "3"}, "--order"},
		{[]string{"--model", "gru", "--opt", "no_read_grad=true"}, "no_read_grad"},
		// An explicit --order is fine for the models that have one: the
		// error is about the next mistake.
		{[]string{"--model", "nspda", "--order", "2", "--max-epochs", "0"}, "max-epochs"},
		{[]string{"--model", "nnpda", "--order", "3", "--max-epochs", "0"}, "max-epochs"},
		{[]string{"--opt", "no_read_grad=true", "--max-epochs", "0"}, "max-epochs"},
		// The default's neutral-symbol starts and two-sided derivative
		// give way to what replaces them, unless given as flags.
		{[]string{"--opt", "neutral_weight=1", "--restarts", "0"}, "neutral_weight"},
		{[]string{"--opt", "two_sided=true", "--opt", "soft_stack=true"}, "two_sided"},
		{[]string{"--opt", "neutral_two_sided=true", "--opt", "soft_stack=true"}, "neutral_two_sided"},
		{[]string{"--opt", "neutral_two_sided=true", "--restarts", "0"}, "neutral_two_sided"},
		// So does its polish, with --patience 0.
		{[]string{"--opt", "polish=5", "--patience", "0", "--restarts", "0", "--probes", "0"}, "polish needs"},
		{[]string{"--opt", "polish=-1"}, "polish needs"},
		{[]string{"--opt", "final_starts=3", "--patience", "0", "--restarts", "0", "--probes", "0"}, "final_starts"},
	} {
		args := append([]string{"train", "--out", t.TempDir()}, tc.args...)
		_, errs, code := cli(t, args...)
		if code != 2 || !strings.HasPrefix(errs, "nspda: ") || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line naming %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestTrainRecipeGivesWay: the recipe bounded's neutral-symbol starts
// (the default's too) need several starts and action neurons, its
// two-sided derivative the digital stack's, and its polish (which the
// default has not) selection's weights: a run without
// restarts, another model, the superposition stack or (the polish) without
// patience drops them (a flag given for them is refused instead:
// TestTrainRefusesInapplicable).
func TestTrainRecipeGivesWay(t *testing.T) {
	for _, tc := range []struct {
		args              []string
		neutral, twoSided bool
		polish, final     int
	}{
		{[]string{"--max-epochs", "1"}, true, true, 50, 12},
		{[]string{"--restarts", "0", "--max-epochs", "1"}, false, false, 50, 12},
		{[]string{"--model", "lstm", "--max-epochs", "1"}, false, false, 50, 12},
		{[]string{"--opt", "soft_stack=true", "--max-epochs", "1"}, true, false, 50, 12},
		{[]string{"--opt", "no_read_grad=true", "--max-epochs", "1"}, true, false, 50, 12},
		{[]string{"--patience", "0", "--restarts", "0", "--opt", "select_max=0", "--max-epochs", "1"}, false, false, 0, 0},
	} {
		dir := t.TempDir()
		if _, errs, code := cli(t, append([]string{"train", "--recipe", "bounded", "--quiet", "--probes", "0", "--out", dir}, tc.args...)...); code != 0 {
			t.Fatalf("%v: exit %d, %s", tc.args, code, errs)
		}
		cfg, err := experiment.ReadConfig(dir)
		if err != nil {
			t.Fatal(err)
		}
		if neutral, two := cfg.NeutralWeight > 0, cfg.NeutralTwoSided; neutral != tc.neutral || two != tc.twoSided {
			t.Errorf("%v: neutral-symbol starts %v, two-sided %v; want %v, %v", tc.args, neutral, two, tc.neutral, tc.twoSided)
		}
		if cfg.Polish != tc.polish || cfg.FinalStarts != tc.final {
			t.Errorf("%v: polish %d, final starts %d; want %d, %d", tc.args, cfg.Polish, cfg.FinalStarts, tc.polish, tc.final)
		}
		// The final starts' weight of the neutral prior goes with the
		// prior or the final starts.
		if w, want := cfg.FinalNeutralWeight, tc.neutral && tc.final > 0; (w > 0) != want {
			t.Errorf("%v: final starts' neutral weight %g, want one: %v", tc.args, w, want)
		}
	}
}

// interrupted makes a run of cfg in a new directory and stops it after
// its first epoch, as a killed run would be.
func interrupted(t *testing.T, cfg experiment.Config) string {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := func(m train.Metrics, _ float64) { cancel() }
	if _, err := experiment.Train(ctx, cfg, dir, false, stop); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run returned %v", err)
	}
	return dir
}

func smallConfig() experiment.Config {
	cfg := experiment.Defaults()
	cfg.Positives, cfg.Negatives = 40, 40
	cfg.Curriculum, cfg.Algo = "standard", "bptt"
	cfg.MaxEpochs = 3
	cfg.Tests = []string{"test60"}
	return cfg
}

// TestTrainResume: a resumed run shows its own configuration (its max
// epochs, not the default's), and refuses training flags it would ignore.
func TestTrainResume(t *testing.T) {
	dir := interrupted(t, smallConfig())
	_, errs, code := cli(t, "train", "--resume", dir, "--max-epochs", "9", "--lr", "0.5", "--quiet")
	if code != 2 || !strings.Contains(errs, "--max-epochs") || !strings.Contains(errs, "--lr") || strings.Contains(errs, "--quiet") || strings.Count(errs, "\n") != 1 {
		t.Errorf("--resume with training flags: exit %d, stderr %q", code, errs)
	}
	out, errs, code := cli(t, "train", "--resume", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "epoch   2/3") || !strings.Contains(out, "epoch   3/3") || strings.Contains(out, "/500") || strings.Contains(out, "epoch   1/") {
		t.Errorf("resumed run's output:\n%s", out)
	}
	if !strings.Contains(out, "-> "+dir) {
		t.Errorf("resumed run does not report its directory:\n%s", out)
	}
}

// TestProgressLine: the plain progress line shows any learning rate
// readably.
func TestProgressLine(t *testing.T) {
	for lr, want := range map[float64]string{0.1005000321: "lr 0.1005 ", 1e-7: "lr 1e-07 ", 3e12: "lr 3e+12 "} {
		var b bytes.Buffer
		p, done := newProgress(&b, 60)
		p(train.Metrics{Epoch: 4, LR: lr}, 1)
		done()
		if !strings.Contains(b.String(), want) || !strings.HasPrefix(b.String(), "epoch   4/60 ") {
			t.Errorf("lr %g: %q, want %q", lr, b.String(), want)
		}
	}
}

// TestTrainDivergesExit1: a run whose loss stops being finite fails (exit
// 1) with one line saying where and why, and writes no model or summary.
func TestTrainDivergesExit1(t *testing.T) {
	dir := t.TempDir()
	_, errs, code := cli(t, "train", "--recipe", "paper", "--lr", "1e308", "--max-epochs", "2", "--algo", "bptt", "--quiet", "--out", dir)
	want := regexp.MustCompile(`^nspda: epoch \d+, string \d+ of \d+: loss is (NaN|[+-]Inf); stopping\n$`)
	if code != 1 || !want.MatchString(errs) {
		t.Errorf("exit %d, stderr %q; want exit 1 and %v", code, errs, want)
	}
	for _, f := range []string{experiment.ModelFile, experiment.SummaryFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("a diverged run wrote %s", f)
		}
	}
}

// TestTrainHidden: --hidden gives J, in place of the recipe's size rule.
func TestTrainHidden(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	if _, errs, code := cli(t, "train", "--hidden", "11", "--max-epochs", "1", "--quiet", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	cfg, err := experiment.ReadConfig(out)
	if err != nil {
		t.Fatal(err)
	}
	m, err := os.ReadFile(filepath.Join(out, "model.json"))
	if err != nil || cfg.Size != "" || cfg.Hidden != 11 || !strings.Contains(string(m), `"J": 11,`) {
		t.Errorf("config %+v, model J = 11: %v", cfg, err)
	}
}

// TestTrainData: `train --data` on splits that `generate` wrote: with
// --select it takes the data recipe whole (selection, restarts and probes,
// the alternating stacks, the size rule "both": J = 8, then 20 if no start of
// 8 passes selection; the select strings are the file's, not the recipe's
// lengths 22–200); without, the same, selecting on the longest tenth of the
// training strings held out, and saying so; with --hold-out 0, one start on
// the digital stack with J = 8 and no probes, and a line that says there is
// no selection;
// the errors come per test file.
func TestTrainData(t *testing.T) {
	dir := t.TempDir()
	gen := func(split, name string, n int) string {
		path := filepath.Join(dir, name+".jsonl")
		if _, errs, code := cli(t, "generate", "--grammar", "anbn", "--split", split, "--seed", "1", "--out", path,
			"--positives", fmt.Sprint(n), "--negatives", fmt.Sprint(n)); code != 0 {
			t.Fatalf("generate %s: %s", split, errs)
		}
		return path
	}
	trainF, selF, testF := gen("train", "train", 30), gen("select", "select", 10), gen("test60", "test", 10)
	for _, mode := range []string{"select", "hold-out", "none"} {
		out := filepath.Join(dir, "run-"+mode)
		args := []string{"train", "--data", trainF, "--test", testF, "--max-epochs", "2", "--out", out, "--quiet"}
		switch mode {
		case "select":
			args = append(args, "--select", selF, "--restarts", "1", "--patience", "1")
		case "hold-out":
			args = append(args, "--restarts", "1", "--patience", "1")
		case "none":
			args = append(args, "--hold-out", "0")
		}
		stdout, errs, code := cli(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", mode, code, errs)
		}
		if !strings.Contains(stdout, "test[22-60]") {
			t.Errorf("%s: no line for the test file in\n%s", mode, stdout)
		}
		said := map[string]string{"select": "", "hold-out": "no --select: selecting weights on the longest 10% of the training strings", "none": "no --select and --hold-out 0: one start of 2 epochs"}[mode]
		if first, _, _ := strings.Cut(stdout, "\n"); said != "" && !strings.HasPrefix(first, said) || said == "" && strings.Contains(stdout, "--select") {
			t.Errorf("%s: the run says %q; want %q", mode, first, said)
		}
		cfg, err := experiment.ReadConfig(out)
		if err != nil {
			t.Fatal(err)
		}
		selects := mode != "none"
		soft := cfg.Option("soft_stack") == true && cfg.Option("soft_alternate") == true && cfg.Patience > 0 && cfg.LMWeight > 0
		size := map[bool]string{true: "both", false: ""}[selects]
		probes := map[bool]int{true: 200, false: 0}[selects] // the recipe's probes need selection
		holdOut := map[string]int{"hold-out": 10}[mode]
		if soft != selects || cfg.Size != size || cfg.SelectMax != 0 || cfg.Probes != probes || cfg.HoldOut != holdOut {
			t.Errorf("%s: config %+v", mode, cfg)
		}
		m, err := os.ReadFile(filepath.Join(out, "model.json"))
		j8, j20 := strings.Contains(string(m), `"J": 8,`), strings.Contains(string(m), `"J": 20,`)
		if err != nil || !j8 && !(selects && j20) {
			t.Errorf("%s: model is not J = 8 (or 20 after selection) (%v)", mode, err)
		}
	}
	// A hold-out needs no --select and --data.
	for _, args := range [][]string{
		{"--data", trainF, "--select", selF, "--hold-out", "10"},
		{"--hold-out", "10"},
		{"--data", trainF, "--hold-out", "60"},
	} {
		if _, errs, code := cli(t, append([]string{"train", "--max-epochs", "1", "--quiet", "--out", filepath.Join(dir, "bad")}, args...)...); code != 2 || !strings.Contains(errs, "hold-out") {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
	// Edits are the grammar's: with --data they are refused.
	if _, errs, code := cli(t, "train", "--data", trainF, "--opt", "edits=10", "--max-epochs", "1", "--out", filepath.Join(dir, "edits"), "--quiet"); code != 2 || !strings.Contains(errs, "edits needs a grammar") {
		t.Errorf("--data --edits: exit %d, %q", code, errs)
	}
}

// TestTrainWorkers: --workers and --opt workers set how many starts of a
// portfolio train at once, not the run: the key is the same, --resume takes
// it, and a portfolio without patience or a negative count is refused.
func TestTrainWorkers(t *testing.T) {
	base, err := experiment.Build("", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range [][]experiment.Setting{
		{{Key: "workers", Value: 3, Name: "--workers"}},
		{{Key: "workers", Value: 3.0, Name: "--opt workers"}}, // as --opt reads it
	} {
		c, err := experiment.Build("", set)
		if err != nil || c.Workers != 3 || c.Key() != base.Key() {
			t.Errorf("%s 3: workers %d, key %s (without: %s), %v", set[0].Name, c.Workers, c.Key(), base.Key(), err)
		}
	}
	for args, want := range map[string]string{
		"--recipe paper --opt portfolio=true": "portfolio needs patience",
		"--workers -1":                        "workers must be at least 1",
	} {
		_, errs, code := cli(t, append([]string{"train", "--quiet", "--out", t.TempDir()}, strings.Fields(args)...)...)
		if code != 2 || !strings.Contains(errs, want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q", args, code, errs, want)
		}
	}
	dir := interrupted(t, smallConfig())
	if _, errs, code := cli(t, "train", "--resume", dir, "--workers", "1", "--quiet"); code != 0 {
		t.Errorf("--resume --workers 1: exit %d, %s", code, errs)
	}
}
