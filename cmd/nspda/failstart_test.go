//go:build linux

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFailedStartLeavesNothing: a run, or repro's tables, that cannot write
// a first file (here a file size limit of 0 bytes, as on a full disk) fails
// in one line and leaves no directory behind, neither its own nor the
// parents it created; they used to be left, empty. The command runs in a child
// process (this test binary again) so that the limit is its own.
func TestFailedStartLeavesNothing(t *testing.T) {
	if args := os.Getenv("NSPDA_TEST_FSIZE0"); args != "" {
		// The child: stdout and stderr are pipes, which the limit spares.
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{}); err != nil {
			os.Exit(99)
		}
		os.Exit(run(context.Background(), strings.Split(args, "\n"), os.Stdin, os.Stdout, os.Stderr))
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "g.yaml")
	if err := os.WriteFile(spec, []byte(readFile(t, filepath.Join("..", "..", "grammar", "testdata", "anbn.yaml"))), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"train", "--model", "elman", "--max-epochs", "1", "--quiet", "--out", filepath.Join(dir, "a", "b", "run")},
		{"train", "--model", "elman", "--max-epochs", "1", "--quiet", "--grammar", spec, "--out", filepath.Join(dir, "pinned")},
		{"repro", "programmed", "--quick", "--store", filepath.Join(dir, "store"), "--out", filepath.Join(dir, "tables", "quick")},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFailedStartLeavesNothing$")
		cmd.Env = append(os.Environ(), "NSPDA_TEST_FSIZE0="+strings.Join(args, "\n"))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != 1 || !strings.HasPrefix(stderr.String(), "nspda: ") || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: exit %d (%v), stderr %q; want exit 1 and one line", args, code, err, stderr.String())
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "g.yaml" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left %q in the directory, want only g.yaml", names)
	}
}
