package model

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad: a model file of any kind either loads, and classifies a short
// string in bounded time, or is refused with a one-line error; never a
// panic, never an allocation beyond the limits.
func FuzzLoad(f *testing.F) {
	dir := f.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range Specs() {
		net, err := s.New([]rune("ab"), opts(s, 2, map[string]any{"stacks": 2, "order": 3}), rng)
		if err != nil {
			f.Fatal(err)
		}
		path := filepath.Join(dir, s.Name+".json")
		if err := Save(path, net, 1); err != nil {
			f.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		f.Add(b)
		huge := strings.Replace(string(b), `"eval_refine": 1`, `"eval_refine": 1000000000`, 1)
		f.Add([]byte(huge))
		f.Add([]byte(strings.Replace(string(b), `"hidden": 2`, `"hidden": 4097`, 1)))
		f.Add([]byte(strings.Replace(string(b), `"stacks": 2`, `"stacks": 100000`, 1)))
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"kind": "elman", "format": "nspda-model", "version": 1, "config": []}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "m.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, refine, err := Load(path)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || strings.Contains(msg, "Go value") {
				t.Fatalf("error is not one user's line: %q", msg)
			}
			return
		}
		if refine < 1 || refine > 100 {
			t.Fatalf("refine %d outside 1..100", refine)
		}
		syms := make([]int, 4)
		for i := range syms {
			syms[i] = i % len(m.Alphabet())
		}
		Classifier(m, refine).Classify(syms)
	})
}
