package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersion: "nspda version" and "nspda --version" print the same line.
func TestVersion(t *testing.T) {
	a, errs, code := cli(t, "version")
	if code != 0 || !strings.HasPrefix(a, "nspda ") || strings.Count(a, "\n") != 1 {
		t.Fatalf("version: exit %d, %q %q", code, a, errs)
	}
	b, _, code := cli(t, "--version")
	if code != 0 || a != b {
		t.Errorf("--version: exit %d, %q; want %q", code, b, a)
	}
}

// TestVersionLdflags: a binary built with -X main.version reports it, as
// does one stamped from a checkout with its revision.
func TestVersionLdflags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "nspda")
	build := exec.Command(goTool(), "build", "-ldflags", "-X main.version=v9.8.7", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "nspda v9.8.7") {
		t.Errorf("--version: %q, %v", out, err)
	}
}
