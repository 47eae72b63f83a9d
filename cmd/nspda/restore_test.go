package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nspda/nspda/experiment"
)

// TestRestoreCommand: a model.json the store left out is named as such by
// the commands that read a model, and restore (by key or --missing) writes
// it back byte for byte.
func TestRestoreCommand(t *testing.T) {
	store := t.TempDir()
	cfg := smallConfig()
	if _, _, err := (experiment.Store{Dir: store}).Run(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	key := cfg.Key()
	model := filepath.Join(store, key, experiment.ModelFile)
	want, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"restore", key, "--store", store}, {"restore", "--missing", "--store", store}} {
		os.Remove(model)
		_, stderr, code := cli(t, "eval", "--model", model, "--grammar", cfg.Grammar)
		if code != 1 || !strings.Contains(stderr, "nspda restore "+key) {
			t.Fatalf("eval of a left-out model: exit %d, %q", code, stderr)
		}
		stdout, stderr, code := cli(t, args...)
		if code != 0 || !strings.Contains(stdout, key+": restored") {
			t.Fatalf("%v: exit %d, %q %q", args, code, stdout, stderr)
		}
		if got, _ := os.ReadFile(model); !bytes.Equal(got, want) {
			t.Fatalf("%v: restored model.json differs", args)
		}
	}
	if stdout, _, code := cli(t, "restore", key, "--store", store); code != 0 || !strings.Contains(stdout, "has its model.json already") {
		t.Errorf("restore of a run with its weights: exit %d, %q", code, stdout)
	}
	for _, args := range [][]string{{"restore", "--store", store}, {"restore", key, "--missing", "--store", store}} {
		if _, _, code := cli(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if _, stderr, code := cli(t, "restore", "0123456789abcdef", "--store", store); code != 1 || !strings.Contains(stderr, "no finished run") {
		t.Errorf("unknown key: exit %d, %q", code, stderr)
	}
}

// TestPackCommand: pack gzips a finished run's line files, and the commands
// that read metrics (curves, restore's check) read the packed run alike.
func TestPackCommand(t *testing.T) {
	store := t.TempDir()
	cfg := smallConfig()
	if _, _, err := (experiment.Store{Dir: store}).Run(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(store, cfg.Key())
	plain := filepath.Join(t.TempDir(), "plain.svg")
	if _, stderr, code := cli(t, "curves", "--out", plain, dir); code != 0 {
		t.Fatalf("curves: %s", stderr)
	}
	if stdout, stderr, code := cli(t, "pack", "--store", store); code != 0 || !strings.Contains(stdout, "packed 1 of 1") {
		t.Fatalf("pack: exit %d, %q %q", code, stdout, stderr)
	}
	if !fileExists(filepath.Join(dir, experiment.MetricsFile+".gz")) || fileExists(filepath.Join(dir, experiment.MetricsFile)) {
		t.Fatal("pack left metrics.jsonl, or wrote no metrics.jsonl.gz")
	}
	packed := filepath.Join(t.TempDir(), "packed.svg")
	if _, stderr, code := cli(t, "curves", "--out", packed, dir); code != 0 {
		t.Fatalf("curves of a packed run: %s", stderr)
	}
	a, _ := os.ReadFile(plain)
	b, _ := os.ReadFile(packed)
	if !bytes.Equal(a, b) {
		t.Error("curves of the packed run differ from the plain run's")
	}
	os.Remove(filepath.Join(dir, experiment.ModelFile))
	if _, stderr, code := cli(t, "restore", cfg.Key(), "--store", store); code != 0 {
		t.Fatalf("restore of a packed run: %s", stderr)
	}
}
