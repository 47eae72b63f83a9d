package experiment

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/grammar"
)

// dataConfig writes ex as the training file (and sel as the select file,
// if any) and returns the configuration train --data builds for them.
func dataConfig(t *testing.T, ex, sel []dataset.Example) Config {
	t.Helper()
	dir := t.TempDir()
	set := []Setting{{Key: "data", Value: filepath.Join(dir, "train.jsonl"), Name: "--data"}}
	if err := dataset.WriteFile(filepath.Join(dir, "train.jsonl"), ex); err != nil {
		t.Fatal(err)
	}
	if sel != nil {
		set = append(set, Setting{Key: "select_data", Value: filepath.Join(dir, "select.jsonl"), Name: "--select"})
		if err := dataset.WriteFile(filepath.Join(dir, "select.jsonl"), sel); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := Build("", set)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// abcd returns the first n members aⁱbʲcʲdⁱ (i, j ≥ 1) by length, each
// twice, and one negative per member (its last symbol dropped).
func abcd(n int) []dataset.Example {
	var ex []dataset.Example
	for s := 2; len(ex) < 3*n; s++ {
		for i := 1; i < s && len(ex) < 3*n; i++ {
			j := s - i
			w := strings.Repeat("a", i) + strings.Repeat("b", j) + strings.Repeat("c", j) + strings.Repeat("d", i)
			ex = append(ex, dataset.Example{String: w, Label: dataset.Positive}, dataset.Example{String: w, Label: dataset.Positive},
				dataset.Example{String: w[:len(w)-1], Label: dataset.Negative})
		}
	}
	return ex
}

// TestSparseData: aⁿbᵐcᵐdⁿ with 25 distinct members is sparse (four
// symbols need 32), and the warning says how many, their lengths and what
// helps; the threshold is exact; aⁿbⁿ's training split, 10 members over two
// symbols, is not sparse; a run on a grammar is never.
func TestSparseData(t *testing.T) {
	s, err := SparseData(dataConfig(t, abcd(25), nil))
	if err != nil || s == nil {
		t.Fatalf("aⁿbᵐcᵐdⁿ, 25 members: %v, %v; want sparse", s, err)
	}
	if s.Positives != 25 || s.Symbols != 4 || s.Threshold != 32 || s.MinLen != 4 || s.MaxLen != 16 {
		t.Errorf("got %+v; want 25 positives, lengths 4–16, 4 symbols, threshold 32", *s)
	}
	w := s.Warning()
	for _, want := range []string{"train.jsonl has 25 distinct positive strings (lengths 4–16) over 4 symbols, fewer than 32",
		"a --select file of strings of length 17–200", "nspda generate --split select --min-len 17 --max-len 200"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
	if n := strings.Count(w, "\n"); n != 2 {
		t.Errorf("warning of %d lines, want 2: %q", n, w)
	}
	if s, err := SparseData(dataConfig(t, abcd(32), nil)); err != nil || s != nil {
		t.Errorf("32 members over 4 symbols: %+v, %v; want not sparse", s, err)
	}
	if s, err := SparseData(dataConfig(t, abcd(31), nil)); err != nil || s == nil {
		t.Errorf("31 members over 4 symbols: %v; want sparse", err)
	}

	sel := abcd(40)[3*25:]
	s, err = SparseData(dataConfig(t, abcd(25), sel))
	if err != nil || s == nil || !strings.Contains(s.Warning(), "select.jsonl adds 15 distinct positives (up to length 20)") {
		t.Errorf("with a select file: %v, %v", s, err)
	}

	anbn, _ := grammar.Builtin("anbn")
	ex, err := dataset.GenerateSplit(anbn, "train", 1)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := SparseData(dataConfig(t, ex, nil)); err != nil || s != nil {
		t.Errorf("aⁿbⁿ's training split: %+v, %v; want not sparse", s, err)
	}
	if s, err := SparseData(Defaults()); err != nil || s != nil {
		t.Errorf("a run on a grammar: %+v, %v", s, err)
	}
}

// TestSparseDataBadInput: bad data gets the error training would give, not
// a warning.
func TestSparseDataBadInput(t *testing.T) {
	ex := abcd(3)
	ex = append(ex, dataset.Example{String: ex[0].String, Label: dataset.Negative})
	_, err := SparseData(dataConfig(t, ex, nil))
	if err == nil || !strings.Contains(err.Error(), "train.jsonl:10: string \"abcd\" is labelled 0") {
		t.Errorf("contradictory labels: %v", err)
	}
}
