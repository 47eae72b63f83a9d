package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nspda/nspda/extract"
	"github.com/nspda/nspda/grammar"
)

// stringsUpTo returns every string over alphabet of lengths 1..n.
func stringsUpTo(alphabet string, n int) []string {
	var all, last []string
	last = []string{""}
	for l := 1; l <= n; l++ {
		var next []string
		for _, s := range last {
			for _, r := range alphabet {
				next = append(next, s+string(r))
			}
		}
		all, last = append(all, next...), next
	}
	return all
}

// anbnData writes train.jsonl, 400 strings of aⁿbⁿ's training split with
// 36 near misses, and test.jsonl, its test60 split, into dir.
func anbnData(t *testing.T, dir string) {
	t.Helper()
	p := func(name string) string { return filepath.Join(dir, name) }
	if _, errs, code := cli(t, "generate", "--grammar", "anbn", "--split", "train", "--seed", "1", "--positives", "200", "--negatives", "200", "--out", p("train.jsonl")); code != 0 {
		t.Fatal(errs)
	}
	if _, errs, code := cli(t, "generate", "--grammar", "anbn", "--split", "test60", "--seed", "1", "--out", p("test.jsonl")); code != 0 {
		t.Fatal(errs)
	}
	// The split's negatives have its members' even lengths, so nothing in
	// it rejects aⁿbⁿ⁺¹; near misses of every kind do.
	f, err := os.OpenFile(p("train.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n < 10; n++ {
		a, b := strings.Repeat("a", n), strings.Repeat("b", n)
		for _, s := range []string{a + b + "b", a + "a" + b, a + b + "a", a + b + "bb"} {
			fmt.Fprintf(f, "{\"string\": %q, \"label\": 0}\n", s)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestInferEndToEnd: infer learns aⁿbⁿ from 436 labelled strings (second
// order, seed 3: 19 epochs, about a second), writes a PDA that is
// aⁿbⁿ on every string of lengths 1–10 (the exact recognizer's verdicts)
// and that program, eval and classify read; the report has its fields, the
// drawing is written, and the same command again reuses the finished run
// and writes the same PDA, byte for byte.
func TestInferEndToEnd(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	anbnData(t, dir)
	args := []string{"infer", "--data", p("train.jsonl"), "--test", p("test.jsonl"), "--out", p("anbn.yaml"), "--order", "2", "--seed", "3",
		"--dir", p("run"), "--report", p("report.json"), "--dot", p("anbn.dot"), "--quiet"}
	out, errs, code := cli(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	if strings.Contains(errs, "sparse") {
		t.Errorf("aⁿbⁿ with its 10 members: a sparse-data warning %q", errs)
	}
	for _, want := range []string{"training: the data recipe, as nspda train --data", "kept: the PDA", "network errors", "test.jsonl", "held-out", "near misses: ", "drawing -> "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	lang, err := grammar.Load(p("anbn.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	anbn, _ := grammar.Builtin("anbn")
	for _, s := range stringsUpTo("ab", 10) {
		if lang.PDA.Accepts(s) != anbn.Recognize(s) {
			t.Fatalf("the inferred PDA and aⁿbⁿ differ on %q:\n%s", s, out)
		}
	}
	checkInferReport(t, p("report.json"))
	if _, err := os.Stat(p("anbn.dot")); err != nil {
		t.Error(err)
	}

	// The PDA file is a grammar the other commands read.
	if _, errs, code := cli(t, "program", "--grammar", p("anbn.yaml"), "--order", "3", "--out", p("prog.json")); code != 0 {
		t.Fatal(errs)
	}
	got, errs, code := cli(t, "eval", "--model", p("prog.json"), "--data", p("test.jsonl"), "--json")
	var ev struct {
		Sets []struct{ Errors, Strings int }
	}
	if code != 0 || json.Unmarshal([]byte(got), &ev) != nil || len(ev.Sets) != 1 || ev.Sets[0].Errors != 0 || ev.Sets[0].Strings == 0 {
		t.Errorf("eval of the programmed PDA: exit %d, %s%s", code, got, errs)
	}
	if got, _, code := cli(t, "classify", "--model", p("prog.json"), "aaabbb", "aabbb"); code != 0 || !strings.HasPrefix(got, "accept") || !strings.Contains(got, "reject") {
		t.Errorf("classify: exit %d, %q", code, got)
	}

	first, _ := os.ReadFile(p("anbn.yaml"))
	out, errs, code = cli(t, args...)
	second, _ := os.ReadFile(p("anbn.yaml"))
	if code != 0 || !strings.Contains(out, "is finished; nothing to resume") || !bytes.Equal(first, second) {
		t.Errorf("again: exit %d, same PDA %v:\n%s%s", code, bytes.Equal(first, second), out, errs)
	}
}

// checkInferReport checks the fields of infer's JSON report.
func checkInferReport(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep inferReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Kept != "pda" || rep.ChosenOn != "held-out" || rep.Reason == "" || rep.Extraction == nil || !rep.Extraction.OK ||
		rep.Order != 2 || rep.Seed != 3 || rep.J == 0 || rep.Model == "" || rep.PDAFile == "" {
		t.Errorf("report: %+v", rep)
	}
	roles := ""
	for _, s := range rep.Sets {
		roles += s.Role + " "
		if s.Strings == 0 || s.PDA == nil || s.Disagreements == nil || s.MaxLen < s.MinLen {
			t.Errorf("set %+v", s)
		}
	}
	if roles != "train held-out test " {
		t.Errorf("sets %q, want train, held-out, test", roles)
	}
	if nm := rep.NearMisses; nm == nil || nm.From != "train.jsonl" || nm.Members == 0 || nm.Unlabelled == 0 || nm.Shortest == nil {
		t.Errorf("near misses: %+v", nm)
	}
}

// TestInferUsage: a missing --data or --out, a bad --order or --dot, is a
// usage error; an unreadable data file is bad input, named with its line.
func TestInferUsage(t *testing.T) {
	dir := t.TempDir()
	data := writeLines(t, filepath.Join(dir, "d.jsonl"), "ab:1", "aabb:1", "ba:0", "a:0")
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"string\": \"ab\", \"label\": 1}\n{\"string\": \"ab\"}\n"), 0o644)
	out := filepath.Join(dir, "p.yaml")
	for _, args := range [][]string{
		{"infer", "--out", out},
		{"infer", "--data", data},
		{"infer", "--data", data, "--out", out, "--order", "4"},
		{"infer", "--data", data, "--out", out, "--dot", "p.png"},
		{"infer", "--data", data, "--out", out, "stray"},
	} {
		_, errs, code := cli(t, args...)
		if code != 2 || !strings.HasPrefix(errs, "nspda: ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line", args, code, errs)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", bad}, bad + ":2"},
		{[]string{"--data", filepath.Join(dir, "missing.jsonl")}, "missing.jsonl"},
		{[]string{"--data", data, "--test", bad}, bad + ":2"},
	} {
		_, errs, code := cli(t, append([]string{"infer", "--out", out, "--dir", filepath.Join(dir, "run"), "--quiet"}, tc.args...)...)
		if code != 1 || !strings.Contains(errs, tc.want) || !strings.HasSuffix(errs, "\n") || strings.Count(errs, "nspda: ") != 1 {
			t.Errorf("%v: exit %d, %q; want exit 1 naming %q", tc.args, code, errs, tc.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed infer wrote the PDA file")
	}
}

// TestSparseWarning: train --data and infer say, on stderr, when the
// training data has few members for its alphabet: aⁿbᵐcᵐdⁿ's 6 shortest,
// over four symbols.
func TestSparseWarning(t *testing.T) {
	dir := t.TempDir()
	data := writeLines(t, filepath.Join(dir, "d.jsonl"), "abcd:1", "abbccd:1", "aabcdd:1", "aabbccdd:1", "abbbcccd:1", "aaabcddd:1",
		"abc:0", "abbcd:0", "aabcd:0", "dcba:0")
	_, errs, code := cli(t, "train", "--data", data, "--hold-out", "0", "--max-epochs", "1", "--quiet", "--out", filepath.Join(dir, "run"))
	if code != 0 || !strings.HasPrefix(errs, "sparse data: d.jsonl has 6 distinct positive strings (lengths 4–8) over 4 symbols, fewer than 32") ||
		!strings.Contains(errs, "--split select") {
		t.Errorf("train: exit %d, stderr %q", code, errs)
	}
}

var extractReportOK = extract.Report{OK: true, States: 3, MaxLen: 10}

// TestInferChoice: the network is kept only when it errs less on the
// selection strings than the PDA, and then the output says so and where
// its model is.
func TestInferChoice(t *testing.T) {
	p, err := grammar.Load("anbn")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		net, pda int
		kept     string
	}{{3, 1, "pda"}, {2, 2, "pda"}, {1, 4, "network"}} {
		rep := &inferReport{Model: "run/model.json", PDAFile: "p.yaml", pda: p.PDA, Extraction: &extractReportOK,
			Sets: []inferSet{
				{Name: "t.jsonl", Role: "train", Strings: 10, PDA: &score{}},
				{Name: "s.jsonl", Role: "select", Strings: 10, Network: score{Errors: tc.net}, PDA: &score{Errors: tc.pda}},
			}}
		rep.choose()
		var b bytes.Buffer
		if err := rep.write(&b, ""); err != nil {
			t.Fatal(err)
		}
		if rep.Kept != tc.kept || rep.ChosenOn != "s.jsonl" {
			t.Errorf("network %d, PDA %d errors: kept %s on %s, want %s", tc.net, tc.pda, rep.Kept, rep.ChosenOn, tc.kept)
		}
		if tc.kept == "network" && !strings.Contains(b.String(), "kept: the network, run/model.json: it is better than the PDA") {
			t.Errorf("output %q", b.String())
		}
	}
	// No PDA: the network is kept, the reason is in the report, and the
	// output names it once (infer's error gives it).
	failed := extract.Report{Message: "the network's state vector took more than 2000 values"}
	rep := &inferReport{Model: "run/model.json", Extraction: &failed,
		Sets: []inferSet{{Name: "s.jsonl", Role: "select", Strings: 10, Network: score{Errors: 1}}}}
	rep.choose()
	var b bytes.Buffer
	if err := rep.write(&b, ""); err != nil {
		t.Fatal(err)
	}
	if rep.Kept != "network" || !strings.Contains(rep.Reason, failed.Message) ||
		!strings.Contains(b.String(), "kept: the network, run/model.json (no PDA was extracted)\n") || strings.Contains(b.String(), failed.Message) {
		t.Errorf("no PDA: kept %s (%s), output %q", rep.Kept, rep.Reason, b.String())
	}
}

// TestInferDrawSVG: --dot FILE.svg writes the SVG alone with Graphviz, and
// says that Graphviz is missing without it.
func TestInferDrawSVG(t *testing.T) {
	p, err := grammar.Load("anbn")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "p.svg")
	var b bytes.Buffer
	err = drawInferred(&b, p.PDA, path)
	if _, lerr := exec.LookPath("dot"); lerr != nil {
		if err == nil || !strings.Contains(err.Error(), "Graphviz") {
			t.Errorf("without Graphviz: %v", err)
		}
		return
	}
	svg, rerr := os.ReadFile(path)
	if err != nil || rerr != nil || !bytes.Contains(svg, []byte("<svg")) || b.String() != "drawing -> "+path+"\n" {
		t.Errorf("%v, %v, %q", err, rerr, b.String())
	}
}

// TestInferResume: an interrupted infer names the command that resumes it,
// and the same command resumes the run and writes the PDA.
func TestInferResume(t *testing.T) {
	dir := t.TempDir()
	anbnData(t, dir)
	p := func(name string) string { return filepath.Join(dir, name) }
	args := []string{"infer", "--data", p("train.jsonl"), "--out", p("anbn.yaml"), "--order", "2", "--seed", "3", "--dir", p("run"), "--quiet"}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var o, e strings.Builder
	if code := run(ctx, args, strings.NewReader(""), &o, &e); code != 1 || !strings.Contains(e.String(), "the same nspda infer command resumes the run in "+p("run")) {
		t.Fatalf("interrupted: exit %d, stderr %q", code, e.String())
	}
	if _, err := os.Stat(p("anbn.yaml")); err == nil {
		t.Error("an interrupted infer wrote the PDA")
	}
	out, errs, code := cli(t, args...)
	if code != 0 || !strings.Contains(out, "resuming "+p("run")) || !strings.Contains(out, "kept: the PDA") {
		t.Errorf("again: exit %d:\n%s%s", code, out, errs)
	}
}
