package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// cli runs the command line in process.
func cli(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"frobnicate"},
		{"eval", "--bogus"},
		{"generate", "--grammar", "anbn"}, // no --out
		{"program", "--grammar", "anbn", "--order", "4", "--out", "x.json"},
		{"classify", "--model", "m.json"}, // no strings
		{"generate", "--grammar", "anbn", "--split", "test7", "--out", "x"},
		{"train", "--opt", "hints=3"},
		{"eval", "--model", "m.json", "--grammar", "anbn", "--sets", "test60,test7"},
		{"eval", "--model", "m.json", "--grammar", "anbn", "--workers", "0"},
		{"generate", "--grammar", "anbn", "--min-len", "0", "--out", "x"},
		{"generate", "--grammar", "anbn", "--max-len", "100000000", "--out", "x"},
		{"generate", "--grammar", "anbn", "--min-len", "9", "--max-len", "4", "--out", "x"},
		{"generate", "--grammar", "anbn", "--positives", "-1", "--out", "x"},
		// More strings than ReadJSONL reads back (limits.Strings).
		{"generate", "--grammar", "anbn", "--positives", "600000", "--negatives", "600000", "--out", "x"},
	} {
		_, errs, code := cli(t, args...)
		if code != 2 || !strings.HasPrefix(errs, "nspda: ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line", args, code, errs)
		}
	}
}

func TestErrorsExit1(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("name: x\nalphabet: [a]\nstart: q0\naccept: [q0]\ntransitions:\n  - [q0, b, empty, q0, push]\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"generate", "--grammar", "nope", "--out", filepath.Join(dir, "x.jsonl")}, `unknown grammar "nope"`},
		{[]string{"generate", "--grammar", bad, "--out", filepath.Join(dir, "x.jsonl")}, "bad.yaml:6:"},
		{[]string{"eval", "--model", filepath.Join(dir, "missing.json"), "--grammar", "anbn"}, "missing.json"},
		{[]string{"generate", "--grammar", "anbn", "--out", dir}, "--out is a directory"},
	} {
		_, errs, code := cli(t, tc.args...)
		if code != 1 || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 mentioning %q", tc.args, code, errs, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.jsonl")); err == nil {
		t.Error("a failed generate left an output file")
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	out, _, code := cli(t, "generate", "--grammar", "dyck2", "--split", "test60", "--seed", "3", "--out", a)
	if code != 0 || !strings.Contains(out, "length-only") {
		t.Fatalf("exit %d, output %q", code, out)
	}
	cli(t, "generate", "--grammar", "dyck2", "--split", "test60", "--seed", "3", "--out", b)
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if len(da) == 0 || !bytes.Equal(da, db) {
		t.Error("same seed, different files")
	}
}

// TestProgramEvalClassify: program a network (rule insertion) and evaluate
// it, in process, plus classify with a trace and a symbol outside the
// alphabet.
func TestProgramEvalClassify(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "dyck2.json")
	if _, errs, code := cli(t, "program", "--grammar", "dyck2", "--out", m); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code := cli(t, "eval", "--model", m, "--grammar", "dyck2", "--sets", "test60", "--json")
	if code != 0 {
		t.Fatal(errs)
	}
	var res struct {
		Sets []struct {
			Name     string  `json:"name"`
			Strings  int     `json:"strings"`
			Errors   int     `json:"errors"`
			ErrorPct float64 `json:"error_pct"`
		} `json:"sets"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Sets) != 1 || res.Sets[0].Strings == 0 || res.Sets[0].Errors != 0 {
		t.Errorf("eval --json = %+v", res)
	}
	out, _, code = cli(t, "classify", "--model", m, "--trace", "([])", "(]")
	if code != 0 || !strings.Contains(out, `accept  y=`) || !strings.Contains(out, `reject  y=`) || !strings.Contains(out, "push") {
		t.Errorf("classify output %q", out)
	}
	_, errs, code = cli(t, "classify", "--model", m, "(x)")
	if code != 1 || !strings.Contains(errs, `'x' at position 2`) {
		t.Errorf("bad symbol: exit %d, %q", code, errs)
	}
	_, errs, code = cli(t, "eval", "--model", m, "--grammar", "anbn")
	if code != 1 || !strings.Contains(errs, "alphabet") {
		t.Errorf("alphabet mismatch: exit %d, %q", code, errs)
	}
}

func TestTrainSmall(t *testing.T) {
	dir := t.TempDir()
	out, errs, code := cli(t, "train", "--grammar", "anbn", "--max-epochs", "2", "--algo", "bptt", "--out", dir)
	if code != 0 {
		t.Fatal(errs)
	}
	// The default tries the paper's size, then (two epochs do not pass
	// selection) the wide one: two epochs each, numbered on. The total
	// counted to is the most: two epochs of starts for each size.
	if !strings.Contains(out, "test960") || !strings.Contains(out, "epoch   2/4") || !strings.Contains(out, "epoch   4/4") || strings.Contains(out, "epoch   5/") ||
		!strings.Contains(out, "no start of the paper's size passed selection in epochs 1–2") {
		t.Errorf("train output %q", out)
	}
	for _, f := range []string{"config.json", "metrics.jsonl", "model.json", "summary.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if _, errs, code := cli(t, "eval", "--model", filepath.Join(dir, "model.json"), "--grammar", "anbn", "--sets", "test60"); code != 0 {
		t.Error(errs)
	}
}

func TestModels(t *testing.T) {
	out, _, code := cli(t, "models")
	if code != 0 {
		t.Fatal(out)
	}
	for _, name := range []string{"nspda", "lstm", "stack-rnn", "list-rnn", "nnpda", "second-order", "mi-gru"} {
		if !strings.Contains(out, name) {
			t.Errorf("models does not list %s", name)
		}
	}
}

// TestEvalBaseline: eval and classify read any model kind; --trace is for
// NSPDAs only.
func TestEvalBaseline(t *testing.T) {
	dir := t.TempDir()
	if _, errs, code := cli(t, "train", "--grammar", "anbn", "--model", "gru", "--hidden", "4", "--max-epochs", "1", "--quiet", "--out", dir); code != 0 {
		t.Fatal(errs)
	}
	m := filepath.Join(dir, "model.json")
	out, errs, code := cli(t, "eval", "--model", m, "--grammar", "anbn", "--sets", "test60")
	if code != 0 || !strings.Contains(out, "test60") {
		t.Fatalf("eval of a gru: exit %d, %q %q", code, out, errs)
	}
	if out, _, code := cli(t, "classify", "--model", m, "aabb"); code != 0 || !strings.Contains(out, `"aabb"`) {
		t.Errorf("classify with a gru: exit %d, %q", code, out)
	}
	if _, errs, code := cli(t, "classify", "--model", m, "--trace", "aabb"); code != 2 {
		t.Errorf("--trace on a gru: exit %d, %q", code, errs)
	}
}

// TestCorruptModelFiles: a damaged model file of any kind is refused with
// one line naming the file and what is wrong, never a panic, and nothing is
// allocated from sizes the file cannot back.
func TestCorruptModelFiles(t *testing.T) {
	dir, good := t.TempDir(), programmed(t, "anbn")
	nspdaFile, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	j := regexp.MustCompile(`"J": \d+`)
	envelope := func(kind, config string, nparams int) string {
		return `{"format": "nspda-model", "version": 1, "kind": "` + kind + `", "alphabet": "ab", "eval_refine": 1, "config": ` +
			config + `, "params": [` + strings.TrimSuffix(strings.Repeat("0,", nparams), ",") + `]}`
	}
	for _, tc := range []struct {
		name, data, want string
	}{
		{"nspda huge J", j.ReplaceAllString(string(nspdaFile), `"J": 10000000`), "state neurons J = 10000000, more than the limit"},
		{"nspda J off by one", j.ReplaceAllString(string(nspdaFile), `"J": 7`), "neuron names for J = 7"},
		{"nspda truncated", string(nspdaFile[:len(nspdaFile)/2]), "not a complete model file (truncated?)"},
		{"empty", "", "not a complete model file (truncated?)"},
		{"not json", "model", "not a valid model file"},
		{"elman truncated", envelope("elman", `{"hidden": 2}`, 3)[:60], "not a complete model file (truncated?)"},
		{"elman huge hidden", envelope("elman", `{"hidden": 10000000}`, 3), "config hidden = 10000000 is more than the limit of 4096"},
		{"lstm hidden without params", envelope("lstm", `{"hidden": 4000}`, 10), "config hidden = 4000, stacks = 0 needs at least 4000 parameters, the file has 10"},
		{"stack-rnn stacks without params", envelope("stack-rnn", `{"hidden": 100, "stacks": 50, "rounding": false, "recurrent": false}`, 4000), "needs at least 5000 parameters, the file has 4000"},
		{"nnpda huge hidden", envelope("nnpda", `{"order": 3, "hidden": 5000, "epsilon": 0.1}`, 10), "config hidden = 5000 is more than the limit"},
		{"gru wrong count", envelope("gru", `{"hidden": 2}`, 3), "3 parameters given"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "m.json")
			if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errs, code := cli(t, "classify", "--model", path, "ab")
			want := "nspda: " + path + ": "
			if code != 1 || out != "" || !strings.HasPrefix(errs, want) || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and one line starting %q mentioning %q", code, out, errs, want, tc.want)
			}
		})
	}
}

// TestClassifyBadStringNoOutput: a bad string anywhere among the arguments
// fails the command before any verdict is printed.
func TestClassifyBadStringNoOutput(t *testing.T) {
	m := filepath.Join(t.TempDir(), "dyck2.json")
	if _, errs, code := cli(t, "program", "--grammar", "dyck2", "--out", m); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code := cli(t, "classify", "--model", m, "([])", "()", "(x)")
	if code != 1 || out != "" || !strings.Contains(errs, `"(x)" (argument 3)`) || !strings.Contains(errs, `'x' at position 2`) {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1, no output", code, out, errs)
	}
}

// TestEvalChecksDataLabels: eval --data refuses a line whose label the
// grammar's recognizer contradicts, or whose string leaves the alphabet,
// naming the file and line.
func TestEvalChecksDataLabels(t *testing.T) {
	dir, m := t.TempDir(), programmed(t, "anbn")
	long := strings.Repeat("a", 50) + strings.Repeat("b", 49)
	for _, tc := range []struct {
		name, lines, want string
	}{
		{"false positive", `{"string":"ab","label":1}` + "\n" + `{"string":"abba","label":1}` + "\n", `F.jsonl:2: label 1 but "abba" is not in anbn`},
		{"false negative", `{"string":"aabb","label":0}` + "\n", `F.jsonl:1: label 0 but "aabb" is in anbn`},
		{"long string", `{"string":"ab","label":1}` + "\n" + `{"string":"ab","label":1}` + "\n" + `{"string":"` + long + `","label":1}` + "\n",
			`F.jsonl:3: label 1 but "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"... (99 symbols) is not in anbn`},
		{"foreign symbol", `{"string":"ab","label":1}` + "\n" + `{"string":"acb","label":0}` + "\n", `F.jsonl:2: string "acb": symbol 'c' at position 2 is not in the alphabet {a,b}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(dir, "F.jsonl")
			if err := os.WriteFile(data, []byte(tc.lines), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errs, code := cli(t, "eval", "--model", m, "--grammar", "anbn", "--data", data)
			if code != 1 || out != "" || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and one line mentioning %q", code, out, errs, tc.want)
			}
		})
	}
	good := filepath.Join(dir, "good.jsonl")
	os.WriteFile(good, []byte(`{"string":"ab","label":1}`+"\n"+`{"string":"abb","label":0}`+"\n"), 0o644)
	if out, errs, code := cli(t, "eval", "--model", m, "--grammar", "anbn", "--data", good); code != 0 || !strings.Contains(out, "good.jsonl") {
		t.Errorf("a correct file: exit %d, %q %q", code, out, errs)
	}
}

// TestCPUProfile checks that --cpuprofile writes a profile (gzip-compressed
// protobuf, as go tool pprof reads) for any command, and that an unwritable
// path is a one-line error.
func TestCPUProfile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cpu.pprof")
	if _, errs, code := cli(t, "models", "--cpuprofile", path); code != 0 {
		t.Fatalf("models --cpuprofile: exit %d, %s", code, errs)
	}
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("profile %s: %d bytes, err %v; want a gzip stream", path, len(b), err)
	}
	_, errs, code := cli(t, "models", "--cpuprofile", filepath.Join(dir, "no", "cpu.pprof"))
	if code != 1 || !strings.Contains(errs, "cpu profile") || strings.Count(errs, "\n") != 1 {
		t.Errorf("unwritable profile: exit %d, stderr %q; want exit 1 naming the profile", code, errs)
	}
}
