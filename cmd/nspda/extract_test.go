package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
