// Package evaluate scores a classifier on labelled strings.
package evaluate

import (
	"fmt"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/grammar"
)

// Result counts a classifier's errors on one set of strings.
type Result struct {
	Name         string  `json:"name"`
	Strings      int     `json:"strings"`
	Errors       int     `json:"errors"`
	ErrorPct     float64 `json:"error_pct"`
	FalseAccepts int     `json:"false_accepts"`
	FalseRejects int     `json:"false_rejects"`
	MinLen       int     `json:"min_len"`
	MaxLen       int     `json:"max_len"`
}

// Run classifies every example with c and counts the errors. Strings are
// encoded with alphabet p; a symbol outside it is an error naming the example.
func Run(name string, c Classifier, p *grammar.PDA, ex []dataset.Example) (Result, error) {
	res := Result{Name: name, Strings: len(ex)}
	var syms []int
	for i, e := range ex {
		var err error
		if syms, err = p.AppendEncode(syms[:0], e.String); err != nil {
			return Result{}, fmt.Errorf("%s: example %d: %v", name, i+1, err)
		}
		n := len(syms)
		if i == 0 || n < res.MinLen {
			res.MinLen = n
		}
		res.MaxLen = max(res.MaxLen, n)
		accept, _ := c.Classify(syms)
		switch {
		case accept && e.Label == 0:
			res.FalseAccepts++
		case !accept && e.Label == 1:
			res.FalseRejects++
		}
	}
	res.Errors = res.FalseAccepts + res.FalseRejects
	if res.Strings > 0 {
		res.ErrorPct = 100 * float64(res.Errors) / float64(res.Strings)
	}
	return res, nil
}
