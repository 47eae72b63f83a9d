package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/nspda/nspda/experiment"
)

// newArgs are old train arguments (--flag=value) as they are given now:
// a flag train still has as it is, any other as --opt KEY=VALUE.
func newArgs(old []string) []string {
	now := newTrain().Flags()
	var out []string
	for _, a := range old {
		name, val, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		switch a {
		case "--recipe=default":
			// The old code's default is the frozen recipe serial (the
			// default's starts one at a time).
			a = "--recipe=serial"
		case "--recipe=data":
			// And its data recipe the frozen data-serial.
			a = "--recipe=data-serial"
		}
		if now.Lookup(name) != nil {
			out = append(out, a)
			continue
		}
		key := strings.ReplaceAll(name, "-", "_")
		for _, o := range legacyOptionFlags {
			if o.flag == name {
				key = o.key
			}
		}
		out = append(out, "--opt", key+"="+val)
	}
	return out
}

// oldValues are the values each old flag of train is tried at: 0 and 2,
// false and true, and a few words for the flags that take words.
func oldValues() []string {
	words := map[string][]string{
		"size": {"both", "small", "wide", "paper"}, "loss": {"label", "viable"},
		"action-rule": {"", "program"}, "model": {"lstm", "nnpda", "stack-rnn"},
		"data": {"x.jsonl"}, "optimizer": {"sgd"}, "curriculum": {"2il", "il"}, "grammar": {"", "dyck2"},
		"select": {"s.jsonl"}, "algo": {"tbptt"},
	}
	var vals []string
	cmd, _ := legacyTrainCommand()
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		var vs []string
		switch f.Value.Type() {
		case "int", "float64", "uint64", "value":
			vs = []string{"0", "2"}
		case "bool":
			vs = []string{"false", "true"}
		default:
			vs = words[f.Name]
		}
		for _, v := range vs {
			vals = append(vals, "--"+f.Name+"="+v)
		}
	})
	return vals
}

// TestTrainConfigsUnchanged: every pair of old train flags, each at 0 or
// 2 (false or true, or a word), under each recipe, makes through the flags
// train has now and --opt the configuration it made through the old flags
// (legacy_test.go): the same config.json, the same key, or an error where
// there was one; so do random sets of three to six flags. Every 9th pair
// and set (with -short every 19th; all of them with NSPDA_ALL_PAIRS=1,
// about 40 s).
func TestTrainConfigsUnchanged(t *testing.T) {
	vals := oldValues()
	step := 9
	switch {
	case os.Getenv("NSPDA_ALL_PAIRS") != "":
		step = 1
	case testing.Short():
		step = 19
	}
	same, refused, n := 0, 0, 0
	for _, recipe := range []string{"default", "paper", "action", "data"} {
		for i := range vals {
			for j := i; j < len(vals); j++ {
				fi, _, _ := strings.Cut(vals[i], "=")
				fj, _, _ := strings.Cut(vals[j], "=")
				if j > i && fi == fj {
					continue
				}
				if n++; n%step != 0 {
					continue
				}
				old := []string{"--recipe=" + recipe, vals[i]}
				if j > i {
					old = append(old, vals[j])
				}
				if recipe == "data" {
					old = append(old, "--data=x.jsonl")
				}
				want, werr := legacyTrainConfig(old...)
				got, gerr := trainFlagsConfig(newArgs(old)...)
				switch {
				case (werr == nil) != (gerr == nil):
					t.Errorf("%v: error %v, was %v", newArgs(old), gerr, werr)
				case werr != nil:
					refused++
				default:
					g, _ := json.Marshal(got)
					w, _ := json.Marshal(want)
					if !bytes.Equal(g, w) || got.Key() != want.Key() {
						t.Errorf("%v:\n got %s\nwant %s", newArgs(old), g, w)
					}
					same++
				}
			}
		}
	}
	// And random sets of three to six flags.
	rng := rand.New(rand.NewPCG(3, 4))
	for range 3000 / step {
		old := []string{"--recipe=" + []string{"default", "paper", "action", "data"}[rng.IntN(4)]}
		seen := map[string]bool{}
		for range 3 + rng.IntN(4) {
			v := vals[rng.IntN(len(vals))]
			if f, _, _ := strings.Cut(v, "="); !seen[f] {
				seen[f] = true
				old = append(old, v)
			}
		}
		want, werr := legacyTrainConfig(old...)
		got, gerr := trainFlagsConfig(newArgs(old)...)
		switch {
		case (werr == nil) != (gerr == nil):
			t.Errorf("%v: error %v, was %v", newArgs(old), gerr, werr)
		case werr != nil:
			refused++
		case got.Key() != want.Key():
			t.Errorf("%v: key %s, was %s", newArgs(old), got.Key(), want.Key())
		default:
			same++
		}
	}
	if same == 0 || refused == 0 {
		t.Fatalf("%d configurations the same, %d refused by both: the pairs do not reach both sides", same, refused)
	}
	t.Logf("%d flag combinations: %d configurations the same, %d refused by both", same+refused, same, refused)
}

// TestTrainRecipeFile: a recipe file's settings make the configuration
// the same settings make as flags and --opt, so that a run's key does not
// depend on how it was asked for; config.json records it; a mistake in the
// file is refused naming the file and line.
func TestTrainRecipeFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "short.yaml")
	text := "base: paper\nset:\n  max_epochs: 1\n  positives: 20\n  negatives: 20\n  tests: [test60]\n  hints: 1\n  edits: 0\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := trainFlagsConfig("--recipe", "paper", "--max-epochs", "1", "--opt", "positives=20", "--opt", "negatives=20", "--opt", "tests=test60", "--opt", "hints=1")
	if err != nil {
		t.Fatal(err)
	}
	got, err := trainFlagsConfig("--recipe", p)
	if err != nil {
		t.Fatal(err)
	}
	if got.Key() != want.Key() {
		t.Fatalf("recipe file: %+v\nflags: %+v", got, want)
	}
	// The command line goes over the file.
	if c, err := trainFlagsConfig("--recipe", p, "--opt", "hints=2", "--seed", "3"); err != nil || c.Seed != 3 || c.Option("hints") != 2.0 {
		t.Fatalf("flags over the file: %v, seed %d, hints %v", err, c.Seed, c.Option("hints"))
	}
	run := filepath.Join(dir, "run")
	if _, errs, code := cli(t, "train", "--quiet", "--recipe", p, "--out", run); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	stored, err := experiment.ReadConfig(run)
	if err != nil || stored.Key() != want.Key() {
		t.Fatalf("config.json %+v (%v), want %+v", stored, err, want)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("base: paper\nset:\n  max_epoch: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := cli(t, "train", "--recipe", bad, "--out", run+"2"); code != 1 || !strings.Contains(errs, bad+`:3: unknown setting "max_epoch"`) || strings.Count(errs, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

// TestTrainHelp: train's help lists at most 35 flags, under the headings
// of their groups, and --opt help lists every setting's key.
func TestTrainHelp(t *testing.T) {
	n := 0
	newTrain().Flags().VisitAll(func(*pflag.Flag) { n++ })
	out, _, code := cli(t, "train", "--help")
	if n > 35 || code != 0 {
		t.Fatalf("%d flags, exit %d", n, code)
	}
	last := -1
	for _, h := range []string{"Model flags:", "Data flags:", "Recipe flags:", "Optimizer flags:", "Run flags:"} {
		i := strings.Index(out, "\n"+h+"\n")
		if i <= last {
			t.Fatalf("help lacks %q in its place:\n%s", h, out)
		}
		last = i
	}
	out, errs, code := cli(t, "train", "--opt", "help")
	if code != 0 {
		t.Fatalf("--opt help: exit %d, %s", code, errs)
	}
	for _, k := range append(experiment.SettingKeys(), "nspda models") {
		if !strings.Contains(out, k) {
			t.Errorf("--opt help lacks %q", k)
		}
	}
	for _, k := range experiment.SettingKeys() {
		if !strings.Contains(out, "  "+k+" ") {
			t.Errorf("--opt help lists %q without its value and help", k)
		}
	}
}
