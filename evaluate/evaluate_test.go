package evaluate

import (
	"strings"
	"testing"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/grammar"
)

// pdaClassifier classifies with the PDA itself.
type pdaClassifier struct{ p *grammar.PDA }

func (c pdaClassifier) Classify(syms []int) (bool, float64) { return c.p.Run(syms), 0 }

// alwaysYes accepts everything.
type alwaysYes struct{}

func (alwaysYes) Classify([]int) (bool, float64) { return true, 1 }

func TestRun(t *testing.T) {
	lang, _ := grammar.Builtin("anbn")
	ex := []dataset.Example{{String: "ab", Label: 1}, {String: "aab", Label: 0}, {String: "aabb", Label: 1}, {String: "ba", Label: 0}}
	res, err := Run("x", pdaClassifier{lang.PDA}, lang.PDA, ex)
	if err != nil || res.Errors != 0 || res.Strings != 4 || res.MinLen != 2 || res.MaxLen != 4 {
		t.Fatalf("PDA on its own language: %+v, %v", res, err)
	}
	res, _ = Run("x", alwaysYes{}, lang.PDA, ex)
	if res.FalseAccepts != 2 || res.FalseRejects != 0 || res.ErrorPct != 50 {
		t.Fatalf("accept-all: %+v", res)
	}
	_, err = Run("x", alwaysYes{}, lang.PDA, []dataset.Example{{String: "abc", Label: 0}})
	if err == nil || !strings.Contains(err.Error(), `'c' at position 3`) {
		t.Fatalf("bad symbol: %v", err)
	}
}
