package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzClassify: any input to classify --file (and so any string) gives
// one verdict per line or a one-line error naming the line, without a
// panic, with and without --trace.
func FuzzClassify(f *testing.F) {
	m := filepath.Join(f.TempDir(), "m.json")
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"program", "--grammar", "anbn", "--out", m}, strings.NewReader(""), &out, &errb); code != 0 {
		f.Fatal(errb.String())
	}
	for _, s := range []string{"aabb\nab\n", "", "\n\n", "ab\xffb\n", "acb", strings.Repeat("a", 70000), "ab\r\nba\r\n"} {
		f.Add(s, false)
	}
	f.Add("aaabbb", true)
	f.Fuzz(func(t *testing.T, in string, trace bool) {
		args := []string{"classify", "--model", m, "--file", "-"}
		if trace {
			args = append(args, "--trace")
		}
		var out, errb bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(in), &out, &errb)
		switch {
		case code == 0 && errb.Len() != 0, code != 0 && code != 1:
			t.Fatalf("exit %d, stderr %q", code, errb.String())
		case code == 1 && (!strings.HasPrefix(errb.String(), "nspda: -:") || strings.Count(errb.String(), "\n") != 1):
			t.Fatalf("error %q is not one line naming the line", errb.String())
		}
	})
}
