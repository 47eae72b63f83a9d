package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/internal/limits"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/nn"
)

// chainSpec writes the PDA of the hardening issue: a chain of n states.
func chainSpec(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "alphabet: [a, b]\nstart: q0\naccept: [q%d]\ntransitions:\n", n)
	for i := range n {
		fmt.Fprintf(&b, "  - [q%d, a, any, q%d, push]\n", i, i+1)
	}
	path := filepath.Join(dir, "chain.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestProgramTooLarge: programming a PDA whose network would be too large
// is an error naming the limit (it used to panic).
func TestProgramTooLarge(t *testing.T) {
	dir := t.TempDir()
	spec := chainSpec(t, dir, 3000)
	_, errs, code := cli(t, "program", "--grammar", spec, "--out", filepath.Join(dir, "m.json"))
	if code != 1 || !strings.Contains(errs, "more than the limit") || strings.Count(errs, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want exit 1 naming the limit", code, errs)
	}
}

// TestTrainBoundsExit2: non-finite or out-of-range numbers and sizes beyond
// the limits are usage errors (exit 2) that write nothing.
func TestTrainBoundsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"--lr", "NaN"}, {"--lr", "Inf"}, {"--lr", "-Inf"}, {"--opt", "hint_h=NaN"},
		{"--model", "nnpda", "--noise", "NaN"}, {"--opt", "noise_scale=NaN"}, {"--opt", "stage_noise=NaN"},
		{"--opt", "noise_scale=-1"}, {"--opt", "noise_scale=1e300"},
		{"--refine", "1000000000"}, {"--opt", "eval_refine=1000000000"},
		{"--model", "stack-rnn", "--opt", "stacks=4097", "--hidden", "1"}, {"--model", "stack-rnn", "--opt", "stacks=100000"},
		{"--model", "stack-rnn", "--opt", "stacks=65"},
		{"--model", "elman", "--hidden", "4097"}, {"--hidden", "-3"}, {"--model", "elman", "--hidden", "-3"},
	} {
		dir := filepath.Join(t.TempDir(), "run")
		_, errs, code := cli(t, append([]string{"train", "--quiet", "--out", dir}, args...)...)
		if code != 2 || strings.Count(errs, "\n") != 1 || strings.Contains(errs, "json:") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line", args, code, errs)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%v: created %s", args, dir)
		}
	}
}

// TestEvalRefineBound: eval --refine beyond the limit is refused at once,
// and its help gives one default.
func TestEvalRefineBound(t *testing.T) {
	m := programmed(t, "anbn")
	_, errs, code := cli(t, "eval", "--model", m, "--grammar", "anbn", "--refine", "100000000")
	if code != 2 || !strings.Contains(errs, "limit") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	out, _, _ := cli(t, "eval", "--help")
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "--refine") && strings.Count(line, "default") != 1 {
			t.Errorf("help line %q: want one default", line)
		}
	}
}

// TestModelFileRefineBound: a model file of any kind with a huge
// eval_refine is refused at once rather than classified for hours.
func TestModelFileRefineBound(t *testing.T) {
	dir, nspdaFile := t.TempDir(), programmed(t, "anbn")
	b, _ := os.ReadFile(nspdaFile)
	os.WriteFile(nspdaFile, []byte(strings.Replace(string(b), `"eval_refine": 1`, `"eval_refine": 1000000000`, 1)), 0o644)
	spec, _ := model.Lookup("elman")
	net, err := spec.New([]rune("ab"), nn.Options{Hidden: 3}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	elmanFile := filepath.Join(dir, "elman.json")
	if err := model.Save(elmanFile, net, 1000000000); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{nspdaFile, elmanFile} {
		start := time.Now()
		_, errs, code := cli(t, "classify", "--model", f, "aabb")
		if code != 1 || !strings.Contains(errs, "eval_refine = 1000000000 is more than the limit") || time.Since(start) > 5*time.Second {
			t.Errorf("%s: exit %d after %v, stderr %q", filepath.Base(f), code, time.Since(start), errs)
		}
	}
}

// TestTrainedModelsLoad: a model at the largest sizes train accepts is a
// model file classify reads (train and load share limits.Sizes).
func TestTrainedModelsLoad(t *testing.T) {
	for _, c := range []struct {
		model          string
		hidden, stacks int
	}{{"stack-rnn", 1, limits.Stacks}, {"elman", 64, 0}} {
		cfg := smallConfig()
		cfg = cfg.WithModel(c.model)
		cfg.Hidden, cfg.MaxEpochs = c.hidden, 1
		if c.stacks > 0 {
			if err := cfg.Set("stacks", c.stacks); err != nil {
				t.Fatal(err)
			}
		}
		cfg.Positives, cfg.Negatives = 5, 5
		if err := cfg.Validate(); err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		dir := t.TempDir()
		if _, err := experiment.Train(context.Background(), cfg, dir, false, nil); err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if _, errs, code := cli(t, "classify", "--model", filepath.Join(dir, "model.json"), "ab"); code != 0 {
			t.Errorf("%+v: classify: %s", c, errs)
		}
	}
}

// TestTrainParamsBound: a model within the size bounds whose parameters
// would be more than limits.Params (an NNPDA of 4096 units over 250
// symbols: 10^12 parameters) is refused at once in one line, nothing
// written; it used to die allocating them, with a stack trace.
func TestTrainParamsBound(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 250 {
		fmt.Fprintf(&b, "{\"string\": %q, \"label\": %d}\n", strings.Repeat(string(rune(0x100+i)), 3), i%2)
	}
	data := filepath.Join(dir, "wide.jsonl")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "run")
	start := time.Now()
	_, errs, code := cli(t, "train", "--quiet", "--data", data, "--model", "nnpda", "--hidden", "4096", "--out", run)
	if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "parameters, more than the limit of 67108864") || time.Since(start) > 10*time.Second {
		t.Errorf("exit %d after %v, stderr %q; want exit 1 naming the limit", code, time.Since(start), errs)
	}
	if _, err := os.Stat(run); err == nil {
		t.Errorf("created %s", run)
	}
}
