package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/train"
)

// auditCase is one command line of the exit-status audit
// (docs/reliability.md, "Exit codes"): 0 success; 1 failed work, one line
// naming the file, line or bound; 2 a usage mistake, one line naming the
// flag. To add a case, add a row to auditCases.
type auditCase struct {
	name string
	// prep, if set, writes the files the arguments name into dir.
	prep func(t *testing.T, dir string)
	// args is the command line; "$DIR" in an argument is the case's
	// temporary directory.
	args []string
	code int
	// stderr and stdout are words the streams must contain.
	stderr, stdout []string
	// not are words neither stream may contain.
	not []string
	// absent are paths (with $DIR) that must not exist afterwards: a usage
	// error writes nothing.
	absent []string
	// long cases (a few seconds of training) are skipped with -short.
	long bool
}

var auditCases = []auditCase{
	{name: "program --h NaN", args: []string{"program", "--grammar", "anbn", "--h", "NaN", "--out", "$DIR/m.json"},
		code: 2, stderr: []string{"--h", "at most 1000"}, absent: []string{"$DIR/m.json"}},
	{name: "program --h overflows", args: []string{"program", "--grammar", "anbn", "--h", "1e308", "--out", "$DIR/m.json"},
		code: 2, stderr: []string{"--h"}, absent: []string{"$DIR/m.json"}},
	{name: "program --ha out of range", args: []string{"program", "--grammar", "anbn", "--ha", "100", "--out", "$DIR/m.json"},
		code: 2, stderr: []string{"--ha", "0.334", "1.530"}, absent: []string{"$DIR/m.json"}},
	{name: "program --ha NaN", args: []string{"program", "--grammar", "anbn", "--ha", "NaN", "--out", "$DIR/m.json"},
		code: 2, stderr: []string{"--ha"}},
	{name: "program --ha at second order", args: []string{"program", "--grammar", "anbn", "--order", "2", "--ha", "0.5", "--out", "$DIR/m.json"},
		code: 2, stderr: []string{"--ha", "--order 2"}},
	{name: "run --index beyond the plan", prep: onePlan, args: []string{"run", "--plan", "$DIR/p.jsonl", "--index", "40", "--store", "$DIR/s"},
		code: 2, stderr: []string{"--index", "0 to 0", "p.jsonl"}, absent: []string{"$DIR/s"}},
	{name: "run --index negative", prep: onePlan, args: []string{"run", "--plan", "$DIR/p.jsonl", "--index", "-1", "--store", "$DIR/s"},
		code: 2, stderr: []string{"--index"}},
	{name: "integer flag NaN", args: []string{"train", "--max-epochs", "NaN"},
		code: 2, stderr: []string{`invalid argument "NaN" for --max-epochs: not an integer`}},
	{name: "float flag", args: []string{"train", "--lr", "x"}, code: 2, stderr: []string{"--lr: not a number"}},
	{name: "unsigned flag", args: []string{"train", "--seed", "-1"}, code: 2, stderr: []string{"--seed: not a whole number"}},
	{name: "integer flag out of range", args: []string{"train", "--seed", "1e99"}, code: 2, stderr: []string{"--seed"}},
	{name: "option flag", args: []string{"train", "--order", "x"}, code: 2, stderr: []string{"--order: not an integer"}},
	{name: "hints option", args: []string{"train", "--opt", "hints=3"}, code: 2, stderr: []string{"hints must be none, 1 or 2"}},
	{name: "bool flag", args: []string{"classify", "--trace=maybe", "ab"}, code: 2, stderr: []string{"--trace: not true or false"}},
	{name: "another command's integer flag", args: []string{"eval", "--workers", "1.5"}, code: 2, stderr: []string{"--workers: not an integer"}},
	{name: "slice flag", args: []string{"train", "--test", `"a`}, code: 2, stderr: []string{"--test"}},
	{name: "resume after config.json changed", prep: editedRun(`"hidden": 0`, `"hidden": 30`), args: []string{"train", "--resume", "$DIR/run"},
		code: 1, stderr: []string{filepath.Join("run", experiment.CheckpointFile), "config.json", "changed since"}},
	{name: "resume after the grammar was swapped", prep: editedRun(`"grammar": "anbn"`, `"grammar": "dyck2"`), args: []string{"train", "--resume", "$DIR/run"},
		code: 1, stderr: []string{experiment.CheckpointFile, "grammar changed since"}},
	{name: "resume in the wide size", prep: wideRun, args: []string{"train", "--resume", "$DIR/run"}, long: true,
		code: 0, stdout: []string{"after epoch 3 of 5: the wide size's epoch 2, after the paper size's 1"}, not: []string{"of 1,"}},
	// The frozen recipe bounded has a polish and final starts, which the
	// count includes (the default's count: TestTrainSmall).
	{name: "--max-epochs counts to the run's most", args: []string{"train", "--recipe", "bounded", "--grammar", "anbn", "--max-epochs", "1", "--out", "$DIR/r"}, long: true,
		code: 0, stdout: []string{"epoch   1/5 ", "epoch   4/5 "}, not: []string{"/2 ", "epoch   5/"}},
	{name: "--max-epochs help", args: []string{"train", "--help"}, code: 0, stdout: []string{"the final starts at most this many"}},
	{name: "--neutral-weight 0", args: []string{"train", "--opt", "neutral_weight=0", "--max-epochs", "1", "--quiet", "--out", "$DIR/r"}, code: 0, long: true},
	{name: "--patience 0", args: []string{"train", "--patience", "0", "--max-epochs", "1", "--quiet", "--out", "$DIR/r"}, code: 0},
	{name: "--patience 0 with --restarts", args: []string{"train", "--patience", "0", "--restarts", "3", "--out", "$DIR/r"},
		code: 2, stderr: []string{"restarts need patience"}, absent: []string{"$DIR/r"}},
	{name: "models: one prefix", prep: writeWideSpec, args: []string{"models", "--grammar", "$DIR/a.yaml"},
		code: 1, stderr: []string{"the nspda model over a's 26 symbols", "more than the limit"}},
	{name: "collect --from a file", prep: func(t *testing.T, dir string) {
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	},
		args: []string{"collect", "--from", "$DIR/f", "--store", "$DIR/s"}, code: 1, stderr: []string{"f: not a directory"}, absent: []string{"$DIR/s"}},
	{name: "collect --from missing", args: []string{"collect", "--from", "$DIR/nope", "--store", "$DIR/s"},
		code: 1, stderr: []string{"nope: no such directory"}, not: []string{"lstat"}, absent: []string{"$DIR/s"}},
	{name: "generate beyond the data bound", args: []string{"generate", "--grammar", "anbn", "--split", "train", "--positives", "500000", "--negatives", "500000", "--min-len", "1100", "--max-len", "1200", "--out", "$DIR/d.jsonl"},
		code: 2, stderr: []string{"limit of a data file", "--min-len"}, absent: []string{"$DIR/d.jsonl"}},
	{name: "extract --sets without --grammar", args: []string{"extract", "--model", "$DIR/m.json", "--sets", "test60", "--out", "$DIR/p.yaml"},
		code: 2, stderr: []string{"--sets", "--grammar"}, absent: []string{"$DIR/p.yaml"}},
	{name: "eval --sets empty", args: []string{"eval", "--model", "$DIR/m.json", "--grammar", "anbn", "--sets", ""}, code: 2, stderr: []string{"--sets"}},
	{name: "classify --file empty", args: []string{"classify", "--model", "$DIR/m.json", "--file", ""}, code: 2, stderr: []string{"--file"}},
	{name: "--slurm-option newline", args: []string{"repro", "hints", "--emit-slurm", "$DIR/sl", "--store", "$DIR/s", "--slurm-option", "--partition=cpu\nrm -rf ~"},
		code: 2, stderr: []string{"--slurm-option", `\n`}, absent: []string{"$DIR/sl", "$DIR/s"}},
	{name: "--slurm-option CR", args: []string{"repro", "hints", "--emit-slurm", "$DIR/sl", "--slurm-option", "--time=1\r"},
		code: 2, stderr: []string{"--slurm-option"}, absent: []string{"$DIR/sl"}},
	{name: "--slurm-option NUL", args: []string{"repro", "hints", "--emit-slurm", "$DIR/sl", "--slurm-option", "--time=1\x00"},
		code: 2, stderr: []string{"--slurm-option"}, absent: []string{"$DIR/sl"}},
	{name: "--emit-slurm directory with a newline", args: []string{"repro", "hints", "--emit-slurm", "$DIR/a\nb"},
		code: 2, stderr: []string{"--emit-slurm"}, absent: []string{"$DIR/a\nb"}},
	{name: "classify --trace escapes names", prep: escapedNames, args: []string{"classify", "--model", "$DIR/esc.json", "--trace", "ab"},
		code: 0, stdout: []string{`q\x1b[31mred\x00`, "accept"}, not: []string{"\x1b", "\x00"}},
}

// goText is what no message shows: a Go package's identifier
// (strconv.ParseInt, *fs.PathError), fmt's complaints, a panic.
var goText = regexp.MustCompile(`\b(strconv|json|fs|os|pflag|cobra|runtime)\.[A-Za-z]|\*[a-z]+\.[A-Z]|%!|panic|goroutine`)

func TestAudit(t *testing.T) {
	for _, tc := range auditCases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.long && testing.Short() {
				t.Skip("trains for a few seconds")
			}
			dir := t.TempDir()
			if tc.prep != nil {
				tc.prep(t, dir)
			}
			sub := func(s string) string { return strings.ReplaceAll(s, "$DIR", dir) }
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = sub(a)
			}
			out, errs, code := cli(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.code, errs)
			}
			if code != 0 && (!strings.HasPrefix(errs, "nspda: ") || strings.Count(errs, "\n") != 1 || strings.Count(errs, "nspda: ") != 1) {
				t.Errorf("stderr %q: want one line with one \"nspda: \" prefix", errs)
			}
			if m := goText.FindString(errs); m != "" {
				t.Errorf("stderr %q shows Go's text %q", errs, m)
			}
			for _, w := range tc.stderr {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %q", errs, w)
				}
			}
			for _, w := range tc.stdout {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(out, w) || strings.Contains(errs, w) {
					t.Errorf("output has %q:\n%s%s", w, out, errs)
				}
			}
			for _, p := range tc.absent {
				if _, err := os.Stat(sub(p)); err == nil {
					t.Errorf("%s exists", sub(p))
				}
			}
		})
	}
}

// onePlan writes p.jsonl, a plan of one run.
func onePlan(t *testing.T, dir string) {
	t.Helper()
	if err := (experiment.Plan{}).Add("t", []experiment.Config{smallConfig()}).WriteFile(filepath.Join(dir, "p.jsonl")); err != nil {
		t.Fatal(err)
	}
}

// editedRun returns a prep that leaves dir/run a run interrupted after its
// first epoch, with old replaced by new in its config.json.
func editedRun(old, new string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		run := filepath.Join(dir, "run")
		interruptAt(t, smallConfig(), run, 1)
		path := filepath.Join(run, "config.json")
		b, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(b), old) {
			t.Fatalf("config.json has no %s (%v)", old, err)
		}
		if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// wideRun leaves dir/run a run of the frozen recipe bounded (train
// --recipe bounded --grammar anbn --max-epochs 1) interrupted after epoch
// 3: the paper's size's one epoch, then the wide size's and its polish's.
func wideRun(t *testing.T, dir string) {
	t.Helper()
	cfg, err := trainFlagsConfig("--recipe", "bounded", "--grammar", "anbn", "--max-epochs", "1")
	if err != nil {
		t.Fatal(err)
	}
	interruptAt(t, cfg, filepath.Join(dir, "run"), 3)
}

// interruptAt trains cfg into dir and interrupts it after epoch n.
func interruptAt(t *testing.T, cfg experiment.Config, dir string, n int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := func(m train.Metrics, _ float64) {
		if m.Epoch >= n {
			cancel()
		}
	}
	if _, err := experiment.Train(ctx, cfg, dir, false, stop); err != context.Canceled {
		t.Fatalf("interrupted run returned %v", err)
	}
}

// writeWideSpec writes a.yaml, a PDA whose NSPDA at the models' default
// size has more parameters than the limit.
func writeWideSpec(t *testing.T, dir string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("alphabet: [")
	for i := range 26 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte(byte('a' + i))
	}
	b.WriteString("]\nstart: q0\naccept: [q400]\ntransitions:\n")
	for i := range 400 {
		fmt.Fprintf(&b, "  - [q%d, a, any, q%d, push]\n", i, i+1)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// escapedNames writes esc.json, a programmed NSPDA whose first neuron's
// name holds an ANSI colour escape and a NUL.
func escapedNames(t *testing.T, dir string) {
	t.Helper()
	path := filepath.Join(dir, "esc.json")
	if _, errs, code := cli(t, "program", "--grammar", "anbn", "--out", path); code != 0 {
		t.Fatal(errs)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["neurons"].([]any)[0] = "q\x1b[31mred\x00"
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// trainFlagsConfig is the configuration train would run with these flags,
// or its usage error, without training.
func trainFlagsConfig(args ...string) (experiment.Config, error) {
	cmd, tf := trainCommand()
	if err := cmd.ParseFlags(args); err != nil {
		return experiment.Config{}, err
	}
	return tf.config(cmd)
}

// TestTrainGiveWay: turning one setting off (0 or false; a flag, or --opt
// for a setting without one) under any recipe either trains or is refused
// with a message about that setting alone, never about a setting of the
// recipe the user did not give (--patience 0 used to complain that
// "restarts need patience", --neutral-weight 0 that "--neutral-patience
// needs --neutral-weight").
func TestTrainGiveWay(t *testing.T) {
	type off struct{ name, arg string }
	var offs []off
	names := experiment.SettingKeys()
	newTrain().Flags().VisitAll(func(f *pflag.Flag) {
		names = append(names, f.Name)
		switch f.Value.Type() {
		case "int", "float64", "uint64":
			offs = append(offs, off{f.Name, "--" + f.Name + "=0"})
		case "bool":
			offs = append(offs, off{f.Name, "--" + f.Name + "=false"})
		}
	})
	def, _ := experiment.Recipe("default")
	for _, k := range experiment.SettingKeys() {
		switch v, _ := def.Get(k); v.(type) {
		case int, float64, uint64:
			offs = append(offs, off{k, "--opt=" + k + "=0"})
		case bool:
			offs = append(offs, off{k, "--opt=" + k + "=false"})
		}
	}
	words := func(s string) string {
		return " " + regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(s), " ") + " "
	}
	for _, recipe := range []string{"default", "paper", "action", "data"} {
		for _, o := range offs {
			args := []string{"--recipe", recipe, o.arg}
			if recipe == "data" {
				args = append(args, "--data", "x.jsonl")
			}
			_, err := trainFlagsConfig(args...)
			if err == nil {
				continue
			}
			msg := words(err.Error())
			for _, other := range names {
				if words(other) != words(o.name) && !displayFlags[other] && other != "out" && strings.Contains(msg, words(other)) {
					t.Errorf("%v: %q names %s, which was not given", args, err, other)
				}
			}
		}
	}
}
