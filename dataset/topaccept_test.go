package dataset

import (
	"path/filepath"
	"testing"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/grammar/grammartest"
)

// TestTopAcceptanceSpec runs the whole protocol over a spec-file language
// whose acceptance depends on the top (accept_with_top): the PDA's labels
// pass Check, and agree with the language's definition too.
func TestTopAcceptanceSpec(t *testing.T) {
	lang, err := grammar.Load(filepath.Join("..", "grammar", "testdata", "topaccept.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	runAllSplits(t, lang, 5)
	ref := &grammar.Language{Name: "topaccept (definition)", Recognize: grammartest.TopAccept}
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
