package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/grammar"
)

// TestNearMisses: the strings one edit from a member of the training file
// that no trained or selected-on file labels, and those the PDA accepts,
// shortest first; a test file's labels do not count, and the language's
// own PDA accepts none of a^n b^n's.
func TestNearMisses(t *testing.T) {
	// a^n b^m, n, m ≥ 1: wrong for a^n b^n on near misses such as aab.
	loose, err := grammar.Parse("loose.yaml", []byte(`name: loose
alphabet: [a, b]
start: q0
accept: [q1]
transitions:
  - [q0, a, empty, q0, push]
  - [q0, a, a, q0, push]
  - [q0, b, a, q1, pop]
  - [q1, b, a, q1, pop]
  - [q1, b, empty, q1, noop]
`))
	if err != nil {
		t.Fatal(err)
	}
	ex := func(s string, label int) dataset.Example { return dataset.Example{String: s, Label: label} }
	sets := []namedSet{
		{"train.jsonl", "train", []dataset.Example{ex("ab", dataset.Positive), ex("aabb", dataset.Positive), ex("abb", dataset.Negative), ex("ba", dataset.Negative)}},
		{"select.jsonl", "select", []dataset.Example{ex("aaabbb", dataset.Positive), ex("aabbb", dataset.Negative)}},
		{"test.jsonl", "test", []dataset.Example{ex("aab", dataset.Negative)}},
	}
	nm, err := findNearMisses(sets, []rune("ab"), loose)
	if err != nil {
		t.Fatal(err)
	}
	// Of the neighbours of ab and aabb, abb and aabbb are labelled.
	// loose accepts aab (which only the test file labels), aaab, abbb and
	// aaabb, not abb and aabbb (labelled).
	want := &nearMisses{From: "train.jsonl", Members: 2, Unlabelled: 16, Accepted: 4, Shortest: []string{"aab", "aaab", "abbb", "aaabb"}}
	if !reflect.DeepEqual(nm, want) {
		t.Errorf("got %+v, want %+v", nm, want)
	}
	// 18 distinct neighbours, of which abb and aabbb are labelled.
	if n := len(dedupe(append(oneEdit([]rune("ab"), []rune("ab")), oneEdit([]rune("aabb"), []rune("ab"))...))); n != 18 || nm.Unlabelled != 16 {
		t.Errorf("%d neighbours, %d unlabelled near misses", n, nm.Unlabelled)
	}
	var b bytes.Buffer
	nm.write(&b)
	if !strings.Contains(b.String(), `accepts 4 of the 16 strings`) || !strings.Contains(b.String(), `"aab", "aaab", "abbb", "aaabb"`) {
		t.Errorf("printed %q", b.String())
	}

	anbn, _ := grammar.Builtin("anbn")
	nm, err = findNearMisses(sets, []rune("ab"), anbn.PDA)
	if err != nil || nm.Accepted != 0 || len(nm.Shortest) != 0 {
		t.Errorf("a^n b^n's PDA: %+v, %v", nm, err)
	}
	b.Reset()
	nm.write(&b)
	if !strings.HasPrefix(b.String(), "near misses: the PDA rejects all") {
		t.Errorf("printed %q", b.String())
	}
}

func dedupe(ss []string) map[string]bool {
	m := map[string]bool{}
	for _, s := range ss {
		m[s] = true
	}
	return m
}
