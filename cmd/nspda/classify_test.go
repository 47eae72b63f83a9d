package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func programmed(t *testing.T, grammar string) string {
	t.Helper()
	m := filepath.Join(t.TempDir(), "m.json")
	if _, errs, code := cli(t, "program", "--grammar", grammar, "--out", m); code != 0 {
		t.Fatal(errs)
	}
	return m
}

// TestClassifyFile: --file reads one string per line, from a file or from
// standard input ("-"), and names the line of a bad string.
func TestClassifyFile(t *testing.T) {
	m := programmed(t, "anbn")
	in := "aabb\nab\r\naab\n"
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"classify", "--model", m, "--file", "-"}, strings.NewReader(in), &out, &errb); code != 0 {
		t.Fatalf("stdin: exit %d: %s", code, errb.String())
	}
	if got := out.String(); strings.Count(got, "accept") != 2 || strings.Count(got, "reject") != 1 || !strings.Contains(got, `"ab"`) {
		t.Errorf("stdin output %q", got)
	}
	f := filepath.Join(t.TempDir(), "s.txt")
	os.WriteFile(f, []byte("ab\nacb\n"), 0o644)
	stdout, errs, code := cli(t, "classify", "--model", m, "--file", f)
	if code != 1 || !strings.Contains(errs, f+":2:") || !strings.Contains(stdout, "accept") {
		t.Errorf("bad line: exit %d, %q, %q", code, stdout, errs)
	}
	if _, _, code := cli(t, "classify", "--model", m, "--file", f, "ab"); code != 2 {
		t.Errorf("--file and arguments: exit %d", code)
	}
	long := strings.Repeat("a", 70000)
	if _, errs, code := cli(t, "classify", "--model", m, long); code != 1 || !strings.Contains(errs, "more than the limit") {
		t.Errorf("overlong string: exit %d, %q", code, errs)
	}
}

// TestTraceLinear: a trace's output grows linearly with the string's
// length (it printed the whole stack at every step).
func TestTraceLinear(t *testing.T) {
	m := programmed(t, "anbn")
	size := func(n int) int {
		s := strings.Repeat("a", n) + strings.Repeat("b", n)
		out, errs, code := cli(t, "classify", "--model", m, "--trace", s)
		if code != 0 {
			t.Fatal(errs)
		}
		return len(out)
	}
	small, big := size(100), size(1000)
	if big > 12*small {
		t.Errorf("trace of 2000 symbols is %d bytes, of 200 %d: not linear", big, small)
	}
}

// TestGenerateShortfall: asking for more strings than the language has of
// the split's lengths says how many were written.
func TestGenerateShortfall(t *testing.T) {
	out, errs, code := cli(t, "generate", "--grammar", "anbn", "--split", "test60", "--positives", "5000", "--out", filepath.Join(t.TempDir(), "d.jsonl"))
	if code != 0 || !strings.Contains(out, "note: 5000 positive strings asked for, wrote 20") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
