//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestGenerateRefusesFIFO: --out naming a FIFO, or a link to one, exits 1
// with one line naming it; the FIFO stays a FIFO (the rename used to
// replace it by a regular file).
func TestGenerateRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(fifo, link)
	for _, out := range []string{fifo, link} {
		_, errs, code := cli(t, "generate", "--grammar", "anbn", "--positives", "5", "--negatives", "5", "--out", out)
		if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, out+": is ") || !strings.Contains(errs, "named pipe") {
			t.Errorf("--out %s: exit %d, stderr %q", out, code, errs)
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", fi, err)
	}
}
