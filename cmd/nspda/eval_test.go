package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/nspda/nspda/evaluate"
)

// storedRun is a finished run of the repository's result store: a
// third-order NSPDA on Dyck-2 (J = 5) that errs on every test set.
const storedRun = "../../results/00f398d9dd5961a6"

// TestEvalWorkers: eval gives the same results on one goroutine as on
// three, and those are the results the run stored when it finished
// (evaluated then one string at a time).
func TestEvalWorkers(t *testing.T) {
	var sum struct {
		Sets []evaluate.Result `json:"sets"`
	}
	b, err := os.ReadFile(filepath.Join(storedRun, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []string{"1", "3"} {
		out, errs, code := cli(t, "eval", "--model", filepath.Join(storedRun, "model.json"), "--grammar", "dyck2", "--workers", workers, "--json")
		if code != 0 {
			t.Fatal(errs)
		}
		var got struct {
			Sets []evaluate.Result `json:"sets"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Sets, sum.Sets) || sum.Sets[0].Errors == 0 {
			t.Errorf("--workers %s: %+v\nstored: %+v", workers, got.Sets, sum.Sets)
		}
	}
}

// anbnSpec writes a^n b^n as a PDA file listing its alphabet as given
// (the built-in's is [a, b]).
func anbnSpec(t *testing.T, dir, alphabet string) string {
	t.Helper()
	path := filepath.Join(dir, "anbn-"+strings.NewReplacer(",", "", " ", "").Replace(alphabet)+".yaml")
	spec := `name: anbn
alphabet: [` + alphabet + `]
start: q0
accept: [q2]
accept_empty_stack: true
transitions:
  - [q0, a, empty, q1, push]
  - [q1, a, a, q1, push]
  - [q1, b, a, q2, pop]
  - [q2, b, a, q2, pop]
`
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// dataModel trains a model on a^n b^n strings with --data for one epoch
// (its alphabet is the data's, sorted: "ab") and returns it with a test
// file.
func dataModel(t *testing.T, dir string) (model, test string) {
	t.Helper()
	gen := func(split string, n int) string {
		path := filepath.Join(dir, split+".jsonl")
		if _, errs, code := cli(t, "generate", "--grammar", "anbn", "--split", split, "--seed", "1", "--out", path,
			"--positives", fmt.Sprint(n), "--negatives", fmt.Sprint(n)); code != 0 {
			t.Fatalf("generate %s: %s", split, errs)
		}
		return path
	}
	trainF, test := gen("train", 20), gen("test60", 20)
	out := filepath.Join(dir, "run")
	if _, errs, code := cli(t, "train", "--data", trainF, "--max-epochs", "1", "--quiet", "--out", out); code != 0 {
		t.Fatalf("train: %s", errs)
	}
	return filepath.Join(out, "model.json"), test
}

// evalJSON runs eval with --json and returns its results, failing the test
// on a non-zero exit.
func evalJSON(t *testing.T, args ...string) []evaluate.Result {
	t.Helper()
	out, errs, code := cli(t, append([]string{"eval", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("eval %v: exit %d: %s", args, code, errs)
	}
	var got struct {
		Sets []evaluate.Result `json:"sets"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	return got.Sets
}

// TestEvalDataAlone: a model learned from data has no grammar to give;
// eval --data alone evaluates the file against the model's alphabet, with
// the same results as with a grammar.
func TestEvalDataAlone(t *testing.T) {
	dir := t.TempDir()
	m, test := dataModel(t, dir)
	alone := evalJSON(t, "--model", m, "--data", test)
	with := evalJSON(t, "--model", m, "--data", test, "--grammar", "anbn")
	if len(alone) != 1 || alone[0].Strings != 40 || !reflect.DeepEqual(alone, with) {
		t.Errorf("--data alone: %+v\nwith --grammar anbn: %+v", alone, with)
	}
	// --sets needs the grammar they are drawn from; no --data, no --grammar
	// is still a usage error.
	for _, args := range [][]string{
		{"eval", "--model", m, "--data", test, "--sets", "test60"},
		{"eval", "--model", m},
	} {
		if _, errs, code := cli(t, args...); code != 2 || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want exit 2, one line", args[2:], code, errs)
		}
	}
}

// TestEvalAlphabetOrder: a model learned from data keeps its symbols sorted
// ("ab"); a PDA file listing them in another order ([b, a]) is the same
// alphabet, and eval gives the same results as against the file in the
// model's order. Another set of symbols is refused in one line naming them.
func TestEvalAlphabetOrder(t *testing.T) {
	dir := t.TempDir()
	m, test := dataModel(t, dir)
	ab, ba := anbnSpec(t, dir, "a, b"), anbnSpec(t, dir, "b, a")
	same := evalJSON(t, "--model", m, "--data", test, "--grammar", ab)
	other := evalJSON(t, "--model", m, "--data", test, "--grammar", ba)
	if !reflect.DeepEqual(same, other) || len(same) != 1 {
		t.Errorf("grammar [a, b]: %+v\ngrammar [b, a]: %+v", same, other)
	}
	ac := anbnSpec(t, dir, "a, b, c")
	_, errs, code := cli(t, "eval", "--model", m, "--data", test, "--grammar", ac)
	if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, `'c' only in the grammar`) {
		t.Errorf("grammar [a, b, c]: exit %d, %q; want exit 1 naming 'c'", code, errs)
	}
}

// TestAlphabetOrderMapsBySymbol: a network programmed from the PDA file
// listing [b, a] is exact on the built-in a^n b^n (alphabet "ab") in eval,
// and extract finds it agrees with the built-in on every string: the
// symbols are mapped by name, not by index (mapped by index, a and b
// would swap and every test set would have errors).
func TestAlphabetOrderMapsBySymbol(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "ba.json")
	if _, errs, code := cli(t, "program", "--grammar", anbnSpec(t, dir, "b, a"), "--out", m); code != 0 {
		t.Fatal(errs)
	}
	for _, r := range evalJSON(t, "--model", m, "--grammar", "anbn", "--sets", "test60") {
		if r.Errors != 0 || r.Strings == 0 {
			t.Errorf("eval on the built-in: %+v", r)
		}
	}
	out, errs, code := cli(t, "extract", "--model", m, "--grammar", "anbn", "--max-len", "8", "--out", filepath.Join(dir, "x.yaml"))
	if code != 0 || !strings.Contains(out, "target anbn (3 states): agrees on") {
		t.Errorf("extract against the built-in: exit %d, %s%s", code, out, errs)
	}
}

// TestEvalSetsRepeated: a set named many times is generated and classified
// once; the list's length costs (almost) nothing.
func TestEvalSetsRepeated(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "m.json")
	if _, errs, code := cli(t, "program", "--grammar", "anbn", "--out", m); code != 0 {
		t.Fatal(errs)
	}
	alloc := func(sets string) (uint64, []evaluate.Result) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res := evalJSON(t, "--model", m, "--grammar", "anbn", "--sets", sets, "--workers", "1")
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc, res
	}
	once, want := alloc("test60")
	many, got := alloc(strings.Repeat("test60,", 1000))
	if len(got) != 1 || !reflect.DeepEqual(got, want) {
		t.Errorf("test60 ×1000: %d results, want %+v", len(got), want)
	}
	if budget := once + once/2 + 1<<20; many > budget {
		t.Errorf("test60 ×1000 allocated %d bytes; budget %d (test60 once: %d)", many, budget, once)
	}
}

// TestEvalSetsEmpty: --sets naming no set would do nothing and exit 0; it
// is a usage error.
func TestEvalSetsEmpty(t *testing.T) {
	for _, sets := range []string{"", ",", " , "} {
		_, errs, code := cli(t, "eval", "--model", "m.json", "--grammar", "anbn", "--sets", sets)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "--sets") {
			t.Errorf("--sets %q: exit %d, %q; want exit 2 and one line", sets, code, errs)
		}
	}
}

// TestEvalDataAloneForeignSymbol: without a grammar, a data string with a
// symbol outside the model's alphabet is refused naming its line.
func TestEvalDataAloneForeignSymbol(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "m.json")
	if _, errs, code := cli(t, "program", "--grammar", "anbn", "--out", m); code != 0 {
		t.Fatal(errs)
	}
	data := filepath.Join(dir, "d.jsonl")
	if err := os.WriteFile(data, []byte("{\"string\":\"ab\",\"label\":1}\n{\"string\":\"abc\",\"label\":0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := cli(t, "eval", "--model", m, "--data", data)
	if want := data + `:2: string "abc": symbol 'c'`; code != 1 || !strings.HasPrefix(errs, "nspda: "+want) || strings.Count(errs, "\n") != 1 {
		t.Errorf("exit %d, %q; want exit 1 and %q", code, errs, want)
	}
}
