package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeLines writes labelled strings as a JSONL data file.
func writeLines(t *testing.T, path string, lines ...string) string {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		s, label, _ := strings.Cut(l, ":")
		fmt.Fprintf(&b, "{\"string\": %q, \"label\": %s}\n", s, label)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTrainDataContradictoryLabels: a string labelled both ways, in one
// file or across the training and validation files, is refused before any
// training, in one line naming both places and the string (cut when long).
func TestTrainDataContradictoryLabels(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("a", 30) + strings.Repeat("b", 30)
	trainF := writeLines(t, filepath.Join(dir, "train.jsonl"), "ab:1", "aabb:1", "ba:0", "a:0", "aabb:0", "b:0")
	same := writeLines(t, filepath.Join(dir, "same.jsonl"), "ab:1", "ba:0", "aabb:1", "aabb:1", long+":1")
	validF := writeLines(t, filepath.Join(dir, "valid.jsonl"), "aaabbb:1", "ab:0")
	validLong := writeLines(t, filepath.Join(dir, "vlong.jsonl"), "aaabbb:1", long+":0")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", trainF}, trainF + `:5: string "aabb" is labelled 0, and 1 on ` + trainF + ":2"},
		{[]string{"--data", same, "--valid", validF}, validF + `:2: string "ab" is labelled 0, and 1 on ` + same + ":1"},
		{[]string{"--data", same, "--valid", validLong}, validLong + `:2: string "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"... (60 symbols) is labelled 0, and 1 on ` + same + ":5"},
	} {
		out := filepath.Join(dir, "run")
		_, errs, code := cli(t, append([]string{"train", "--max-epochs", "1", "--quiet", "--out", out}, tc.args...)...)
		if code != 1 || errs != "nspda: "+tc.want+"\n" {
			t.Errorf("%v: exit %d, %q; want exit 1, %q", tc.args, code, errs, tc.want)
		}
		if _, err := os.Stat(filepath.Join(out, "model.json")); err == nil {
			t.Errorf("%v: wrote a model", tc.args)
		}
	}
	// The same string twice with one label is no contradiction.
	if _, errs, code := cli(t, "train", "--data", same, "--max-epochs", "1", "--quiet", "--out", filepath.Join(dir, "ok")); code != 0 {
		t.Errorf("a string twice with one label: exit %d, %q", code, errs)
	}
}
