package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nspda/nspda/grammar"
)

// TestExtractCLI: extract(program(dyck2)) writes a PDA file the other
// commands take, a report, and agrees with the network and the target; the
// extracted file programs again into a network with 0 errors.
func TestExtractCLI(t *testing.T) {
	m := programmed(t, "dyck2")
	dir := t.TempDir()
	p, rep := filepath.Join(dir, "p.yaml"), filepath.Join(dir, "r.json")
	out, errs, code := cli(t, "extract", "--model", m, "--out", p, "--grammar", "dyck2", "--max-len", "6",
		"--report", rep, "--dot", filepath.Join(dir, "p.dot"))
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(out, "target dyck2 (2 states): agrees on every string up to length 6") {
		t.Errorf("output:\n%s", out)
	}
	var r struct {
		OK     bool `json:"ok"`
		States int  `json:"states"`
	}
	data, _ := os.ReadFile(rep)
	if err := json.Unmarshal(data, &r); err != nil || !r.OK || r.States != 2 {
		t.Errorf("report %s: %v", data, err)
	}
	again := filepath.Join(dir, "again.json")
	if _, errs, code := cli(t, "program", "--grammar", p, "--out", again); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code = cli(t, "eval", "--model", again, "--grammar", "dyck2", "--sets", "test960")
	if code != 0 || !strings.Contains(out, "test960") {
		t.Fatalf("eval: %d %s %s", code, out, errs)
	}
	if _, _, code := cli(t, "extract", "--model", m); code != 2 {
		t.Errorf("no --out: exit %d, want 2", code)
	}
}

// TestExtractTopAcceptance: a network whose verdict depends on the top (the
// programmed topaccept PDA) gets a PDA file with accept_with_top that the
// other commands read; one whose control exceeds --max-states is refused
// with exit status 1, a message and a partial report.
func TestExtractTopAcceptance(t *testing.T) {
	spec := filepath.Join("..", "..", "grammar", "testdata", "topaccept.yaml")
	m := programmed(t, spec)
	dir := t.TempDir()
	p, rep := filepath.Join(dir, "p.yaml"), filepath.Join(dir, "r.json")
	out, errs, code := cli(t, "extract", "--model", m, "--out", p, "--grammar", spec, "--max-len", "6", "--report", rep)
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(out, "acceptance: by state and top") || !strings.Contains(out, "target topaccept (2 states): agrees") {
		t.Errorf("output:\n%s", out)
	}
	data, _ := os.ReadFile(p)
	if !strings.Contains(string(data), "accept_with_top:") {
		t.Errorf("no accept_with_top in\n%s", data)
	}
	var r struct {
		OK         bool   `json:"ok"`
		Acceptance string `json:"acceptance"`
	}
	data, _ = os.ReadFile(rep)
	if err := json.Unmarshal(data, &r); err != nil || !r.OK || r.Acceptance != "state and top" {
		t.Errorf("report %s: %v", data, err)
	}
	out, errs, code = cli(t, "classify", "--model", m, "ab", "abc")
	if code != 0 || !strings.Contains(out, "reject") || !strings.Contains(out, "accept") {
		t.Errorf("classify: %d %s %s", code, out, errs)
	}
	if _, errs, code := cli(t, "eval", "--model", m, "--grammar", p, "--sets", "test60"); code != 0 {
		t.Errorf("eval against the extracted PDA: %s", errs)
	}

	refused := filepath.Join(dir, "refused.yaml")
	_, errs, code = cli(t, "extract", "--model", m, "--out", refused, "--max-states", "2", "--report", rep)
	if code != 1 || !strings.Contains(errs, "does not behave as a finite control") {
		t.Errorf("--max-states 2: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(refused); err == nil {
		t.Error("a refused extraction wrote a PDA file")
	}
	data, _ = os.ReadFile(rep)
	if err := json.Unmarshal(data, &r); err != nil || r.OK || !strings.Contains(string(data), `"explored_states": 2`) {
		t.Errorf("partial report %s: %v", data, err)
	}
}

// TestExtractMaxLenBound: --max-len beyond the longest string any command
// reads (limits.StringLen) is refused at once, whatever the alphabet. It
// used to count 10^9 powers before refusing (more than 30 s), and over one
// symbol to walk strings of 6·10^7 symbols: out of memory, a stack trace.
func TestExtractMaxLenBound(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(spec, []byte("alphabet: [a]\nstart: q0\naccept: [q1]\ntransitions:\n  - [q0, a, any, q1, push]\n  - [q1, a, any, q1, push]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ model, maxLen string }{{programmed(t, "anbn"), "1000000000"}, {programmed(t, spec), "60000000"}} {
		start := time.Now()
		_, errs, code := cli(t, "extract", "--model", c.model, "--out", filepath.Join(dir, "p.yaml"), "--max-len", c.maxLen)
		if code != 2 || !strings.Contains(errs, "more than the limit of 65536") || time.Since(start) > 5*time.Second {
			t.Errorf("--max-len %s: exit %d after %v, stderr %q", c.maxLen, code, time.Since(start), errs)
		}
	}
}

// dyck3 is Dyck-3 as a spec file: six symbols, so that every string up to
// length 10 (72559411) is more than extract compares exhaustively.
const dyck3 = `alphabet: ["(", ")", "[", "]", "{", "}"]
start: q0
accept: [q0]
accept_empty_stack: true
transitions:
  - [q0, "(", any, q0, push]
  - [q0, "[", any, q0, push]
  - [q0, "{", any, q0, push]
  - [q0, ")", "(", q0, pop]
  - [q0, "]", "[", q0, pop]
  - [q0, "}", "{", q0, pop]
`

// TestExtractDefaultMaxLen: without --max-len, a six-symbol model is
// compared up to the longest length the bound allows (9), not refused for
// the default 10; an explicit --max-len 10 is still refused with exit 2.
// (--max-states 1 stops the run right after the check, before comparing.)
func TestExtractDefaultMaxLen(t *testing.T) {
	for L, want := range map[int]int{1: 10, 5: 10, 6: 9, 16: 6, 256: 3} {
		if got := defaultMaxLen(L); got != want || exhaustiveCount(L, got) > maxExhaustive {
			t.Errorf("defaultMaxLen(%d) = %d, want %d", L, got, want)
		}
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "dyck3.yaml")
	if err := os.WriteFile(spec, []byte(dyck3), 0o644); err != nil {
		t.Fatal(err)
	}
	m := programmed(t, spec)
	rep := filepath.Join(dir, "r.json")
	_, errs, code := cli(t, "extract", "--model", m, "--out", filepath.Join(dir, "p.yaml"), "--max-states", "1", "--report", rep)
	if code != 1 || !strings.Contains(errs, "finite control") {
		t.Errorf("default --max-len over six symbols: exit %d, %s", code, errs)
	}
	var r struct {
		MaxLen int `json:"max_len"`
	}
	data, _ := os.ReadFile(rep)
	if err := json.Unmarshal(data, &r); err != nil || r.MaxLen != 9 {
		t.Errorf("report %s: %v, want max_len 9", data, err)
	}
	_, errs, code = cli(t, "extract", "--model", m, "--out", filepath.Join(dir, "p.yaml"), "--max-len", "10")
	if code != 2 || !strings.Contains(errs, "72559411 strings") {
		t.Errorf("--max-len 10 over six symbols: exit %d, %s", code, errs)
	}
}

// TestExtractSetsNeedGrammar: --sets without --grammar is a usage mistake
// naming both flags, not silently ignored.
func TestExtractSetsNeedGrammar(t *testing.T) {
	m := programmed(t, "anbn")
	out := filepath.Join(t.TempDir(), "p.yaml")
	_, errs, code := cli(t, "extract", "--model", m, "--out", out, "--sets", "test960", "--max-len", "4")
	if code != 2 || !strings.Contains(errs, "--sets") || !strings.Contains(errs, "--grammar") {
		t.Errorf("--sets without --grammar: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused extraction wrote a PDA file")
	}
}

// TestExtractSymbolsReadBack: a model over symbols that YAML takes for line
// breaks (NEL, LS) gets a PDA file that reads back with the same alphabet
// and programs again; it used to be written with them raw, and read back
// as spaces ("symbol " " cannot be used").
func TestExtractSymbolsReadBack(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "nel.yaml")
	src := "alphabet: [\"\\x85\", \"\\u2028\", a]\nstart: q0\naccept: [q0]\naccept_empty_stack: true\ntransitions:\n" +
		"  - [q0, \"\\x85\", any, q0, push]\n  - [q0, \"\\u2028\", \"\\x85\", q0, pop]\n  - [q0, a, any, q0, noop]\n"
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m := programmed(t, spec)
	p := filepath.Join(dir, "p.yaml")
	if _, errs, code := cli(t, "extract", "--model", m, "--out", p, "--grammar", spec, "--sets", "test60", "--max-len", "6"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	l, err := grammar.Load(p)
	if err != nil {
		data, _ := os.ReadFile(p)
		t.Fatalf("the written PDA does not read back: %v\n%s", err, data)
	}
	if got := string(l.PDA.Alphabet); got != "\u0085\u2028a" {
		t.Errorf("alphabet %q reads back", got)
	}
	if _, errs, code := cli(t, "program", "--grammar", p, "--out", filepath.Join(dir, "again.json")); code != 0 {
		t.Errorf("program the extracted PDA: %s", errs)
	}
}

// TestExtractPathCannotInject: a model path or an output name holding CR,
// LF or NEL does not add lines to the PDA file: it reads back as the PDA
// extracted from a plain path, the path quoted in its comment. A CR used
// to end the comment and let the path write fields of the spec (here
// accept_with_top, which would change the language) while extract still
// reported agreement.
func TestExtractPathCannotInject(t *testing.T) {
	m := programmed(t, "dyck2")
	data, err := os.ReadFile(m)
	if err != nil {
		t.Fatal(err)
	}
	extracted := func(model, out string) *grammar.PDA {
		t.Helper()
		if _, errs, code := cli(t, "extract", "--model", model, "--out", out, "--max-len", "4"); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		spec, _ := os.ReadFile(out)
		if strings.ContainsAny(string(spec), "\r\u0085\u2028\u2029") {
			t.Errorf("a raw line break in\n%q", spec)
		}
		p, err := grammar.Parse(out, spec)
		if err != nil {
			t.Fatalf("%v\n%s", err, spec)
		}
		return p
	}
	plain := extracted(m, filepath.Join(t.TempDir(), "p.yaml"))
	for _, brk := range []string{"\r", "\n", "\r\n", "\u0085"} {
		dir := t.TempDir()
		hostile := filepath.Join(dir, "m"+brk+"accept_with_top: {q0: [any]}"+brk+"#.json")
		if err := os.WriteFile(hostile, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got := extracted(hostile, filepath.Join(dir, "p.yaml"))
		if string(got.MarshalSpec()) != string(plain.MarshalSpec()) {
			t.Errorf("model path with %q: the PDA read back is\n%s\nwant\n%s", brk, got.MarshalSpec(), plain.MarshalSpec())
		}
		if got := extracted(m, filepath.Join(dir, "p"+brk+"q.yaml")); got.Name != "p"+brk+"q" {
			t.Errorf("output name with %q reads back as %q", brk, got.Name)
		}
	}
}

// TestExtractMaxStatesBound: --max-states is refused (exit 2) where the
// states could cost more memory than exploration's bound for the model's
// state neurons and alphabet; the documented 20000 is allowed.
func TestExtractMaxStatesBound(t *testing.T) {
	m := programmed(t, "anbn")
	dir := t.TempDir()
	_, errs, code := cli(t, "extract", "--model", m, "--out", filepath.Join(dir, "p.yaml"), "--max-states", "1048576")
	if code != 2 || !strings.Contains(errs, "--max-states 1048576 is too many") {
		t.Errorf("--max-states 1048576: exit %d, %s", code, errs)
	}
	if _, errs, code := cli(t, "extract", "--model", m, "--out", filepath.Join(dir, "p.yaml"), "--max-states", "20000", "--max-len", "4"); code != 0 {
		t.Errorf("--max-states 20000: exit %d, %s", code, errs)
	}
}
