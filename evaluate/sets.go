package evaluate

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/grammar"
)

// Set is a named set of labelled strings.
type Set struct {
	Name string
	Ex   []dataset.Example
}

// RunSets classifies every string of every set and counts each set's errors
// as Run does, on workers goroutines (workers < 1: runtime.GOMAXPROCS(0)),
// each with its own classifier from mk. mk is called once per goroutine,
// before any classifies, on the caller's goroutine; with more than one
// worker its classifiers must be safe to run at the same time
// (nn.ClassifierMaker's are).
//
// The strings of all sets are handed out one at a time, longest first, to
// whichever goroutine is free, so that the long strings spread over the
// goroutines and the short ones fill the gaps at the end (one worker
// classifies them in order, set after set, as Run does). Each string's
// answer is its classifier's, so the results are those of Run with one
// classifier, whatever the number of workers, when mk's classifiers answer
// alike. A symbol outside p's alphabet is an error naming the set and the
// example, as in Run; nothing is classified then.
func RunSets(sets []Set, mk func() Classifier, p *grammar.PDA, workers int) ([]Result, error) {
	enc := make([]encoded, len(sets))
	var jobs []job
	for s, set := range sets {
		var err error
		if enc[s], err = encode(set.Name, p, set.Ex); err != nil {
			return nil, err
		}
		for i := range set.Ex {
			jobs = append(jobs, job{s, i, enc[s].len(i)})
		}
	}
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(jobs)))
	if workers > 1 {
		slices.SortStableFunc(jobs, func(a, b job) int { return cmp.Compare(b.n, a.n) })
	}
	cls := make([]Classifier, workers)
	for w := range cls {
		cls[w] = mk()
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for _, c := range cls {
		wg.Go(func() {
			var buf []int // this worker's string, encoded again, reused
			for {
				k := int(next.Add(1)) - 1
				if k >= len(jobs) {
					return
				}
				j := jobs[k]
				buf, _ = p.AppendEncode(buf[:0], sets[j.set].Ex[j.i].String)
				enc[j.set].accept[j.i], _ = c.Classify(buf)
			}
		})
	}
	wg.Wait()
	out := make([]Result, len(sets))
	for s, set := range sets {
		out[s] = enc[s].count(set.Name, set.Ex)
	}
	return out, nil
}

// job is string i of set s, of n symbols.
type job struct{ set, i, n int }

// encoded is what a set's strings come to: their lengths in symbols and
// their answers. The symbols themselves are encoded again, one string at a
// time, into a buffer that each worker reuses: holding every string encoded
// (8 bytes a symbol) took gigabytes for a data file of long strings.
type encoded struct {
	n      []int
	accept []bool
}

// encode checks ex against alphabet p; a symbol outside it is an error
// naming the set and the example.
func encode(name string, p *grammar.PDA, ex []dataset.Example) (encoded, error) {
	e := encoded{n: make([]int, len(ex)), accept: make([]bool, len(ex))}
	var buf []int
	for i, x := range ex {
		var err error
		if buf, err = p.AppendEncode(buf[:0], x.String); err != nil {
			return encoded{}, fmt.Errorf("%s: example %d: %v", name, i+1, err)
		}
		e.n[i] = len(buf)
	}
	return e, nil
}

func (e *encoded) len(i int) int { return e.n[i] }

// count compares the answers with the labels of ex.
func (e *encoded) count(name string, ex []dataset.Example) Result {
	res := Result{Name: name, Strings: len(ex)}
	for i, x := range ex {
		n := e.len(i)
		if i == 0 || n < res.MinLen {
			res.MinLen = n
		}
		res.MaxLen = max(res.MaxLen, n)
		switch {
		case e.accept[i] && x.Label == 0:
			res.FalseAccepts++
		case !e.accept[i] && x.Label == 1:
			res.FalseRejects++
		}
	}
	res.Errors = res.FalseAccepts + res.FalseRejects
	if res.Strings > 0 {
		res.ErrorPct = 100 * float64(res.Errors) / float64(res.Strings)
	}
	return res
}
