// Package evaluate scores a classifier on labelled strings.
package evaluate

import (
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
// RunSets does the same for several sets on several goroutines.
func Run(name string, c Classifier, p *grammar.PDA, ex []dataset.Example) (Result, error) {
	e, err := encode(name, p, ex)
	if err != nil {
		return Result{}, err
	}
	var buf []int
	for i, x := range ex {
		buf, _ = p.AppendEncode(buf[:0], x.String)
		e.accept[i], _ = c.Classify(buf)
	}
	return e.count(name, ex), nil
}
