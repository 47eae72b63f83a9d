package dataset

import (
	"path/filepath"
	"testing"

	"github.com/nspda/nspda/grammar"
)

// topaccept decides the language of grammar/testdata/topaccept.yaml from
// its definition: a and b push, c cancels the last uncancelled letter
// (never more than were pushed), and a non-empty string is a member when
// nothing is left or the last letter left is an a.
func topaccept(s string) bool {
	var left []rune
	for _, r := range s {
		switch r {
		case 'a', 'b':
			left = append(left, r)
		case 'c':
			if len(left) == 0 {
				return false
			}
			left = left[:len(left)-1]
		default:
			return false
		}
	}
	return s != "" && (len(left) == 0 || left[len(left)-1] == 'a')
}

// TestTopAcceptanceSpec runs the whole protocol over a spec-file language
// whose acceptance depends on the top (accept_with_top): the PDA's labels
// pass Check, and agree with the language's definition too.
func TestTopAcceptanceSpec(t *testing.T) {
	lang, err := grammar.Load(filepath.Join("..", "grammar", "testdata", "topaccept.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	runAllSplits(t, lang, 5)
	ref := &grammar.Language{Name: "topaccept (definition)", Recognize: topaccept}
	for _, split := range []string{"train", "test960"} {
		ex, err := GenerateSplit(lang, split, 5)
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(ref, ex); err != nil {
			t.Errorf("%s: %v", split, err)
		}
	}
}
