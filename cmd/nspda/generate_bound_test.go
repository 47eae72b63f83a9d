package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/grammar"
)

// TestGenerateDataBound: generate refuses data of more than the bound of a
// file --data reads (limits.DataBytes, scaled down here) before the rename:
// the error is one line naming the file, and no file, temporary or not, is
// left; an earlier file is kept. Data of exactly the bound is written and
// reads back. (generate used to write 1.1 GB that --data then refused.)
func TestGenerateDataBound(t *testing.T) {
	lang, err := grammar.Load("anbn")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := dataset.DefaultSpec("train")
	if err != nil {
		t.Fatal(err)
	}
	spec.Positives, spec.Negatives = 30, 30
	ex, err := dataset.GenerateWith(lang, spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := dataset.WriteJSONL(&buf, ex); err != nil {
		t.Fatal(err)
	}
	size := int64(buf.Len())
	dir := t.TempDir()
	path := filepath.Join(dir, "train.jsonl")
	err = writeData(path, ex, size-1)
	if err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), "--data would refuse") || strings.Contains(err.Error(), "\n") {
		t.Errorf("data of %d bytes at a bound of %d: %v; want one line naming %s", size, size-1, err, path)
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Errorf("a refused write left %v", names)
	}
	os.WriteFile(path, []byte("old\n"), 0o644)
	writeData(path, ex, size-1)
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Errorf("a refused write changed the earlier file: %q", b)
	}
	if err := writeData(path, ex, size); err != nil {
		t.Fatalf("data of exactly the bound: %v", err)
	}
	back, err := dataset.ReadFile(path)
	if err != nil || !slices.Equal(back, ex) {
		t.Errorf("read back: %d examples, %v; want the %d written", len(back), err, len(ex))
	}
}
