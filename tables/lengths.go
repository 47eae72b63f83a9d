package tables

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/internal/atomicfile"
	"github.com/nspda/nspda/internal/limits"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/nn"
)

// LengthsFile caches a run's errors by string length in its run directory.
const LengthsFile = "lengths.json"

// LengthBin is a range of string lengths and how many strings of each label
// are drawn from it (fewer when the language has fewer distinct ones).
type LengthBin struct {
	Min       int `json:"min"`
	Max       int `json:"max"`
	Positives int `json:"positives"`
	Negatives int `json:"negatives"`
}

// LengthBins returns the bins of the error-against-length figures, doubling
// from the end of the training lengths to the longest test strings: 22–60,
// 61–120, 121–240, 241–480, 481–960, with 100 strings of each label (10 with
// quick).
func LengthBins(quick bool) []LengthBin {
	n := 100
	if quick {
		n = 10
	}
	edges := []int{22, 61, 121, 241, 481, 961}
	bins := make([]LengthBin, len(edges)-1)
	for i := range bins {
		bins[i] = LengthBin{Min: edges[i], Max: edges[i+1] - 1, Positives: n, Negatives: n}
	}
	return bins
}

// LengthErrors is a network's error in each LengthBin.
type LengthErrors struct {
	Bins     []LengthBin       `json:"bins"`
	TestSeed uint64            `json:"test_seed"`
	Results  []evaluate.Result `json:"results"`
}

// lengthSets draws the strings of each (grammar, bin, seed) once and shares
// them between the runs of a table. It is safe for concurrent use.
type lengthSets struct {
	mu   sync.Mutex
	sets map[string][]dataset.Example
}

func (ls *lengthSets) get(lang *grammar.Language, b LengthBin, seed uint64) ([]dataset.Example, error) {
	key := fmt.Sprintf("%s/%d-%d/%d+%d/%d", lang.Name, b.Min, b.Max, b.Positives, b.Negatives, seed)
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ex, ok := ls.sets[key]; ok {
		return ex, nil
	}
	spec := dataset.Spec{Split: fmt.Sprintf("length%d-%d", b.Min, b.Max), Positives: b.Positives, Negatives: b.Negatives,
		MinLen: b.Min, MaxLen: b.Max, Distinct: true}
	ex, err := dataset.Generate(lang, spec, seed, nil)
	if err != nil {
		return nil, err
	}
	if ls.sets == nil {
		ls.sets = make(map[string][]dataset.Example)
	}
	ls.sets[key] = ex
	return ex, nil
}

// evaluate classifies each bin's strings with net.
func (ls *lengthSets) evaluate(net nn.Model, refine int, lang *grammar.Language, bins []LengthBin, seed uint64) (*LengthErrors, error) {
	le := &LengthErrors{Bins: bins, TestSeed: seed}
	for _, b := range bins {
		ex, err := ls.get(lang, b, seed)
		if err != nil {
			return nil, err
		}
		if r, ok := net.(nn.Reserver); ok {
			r.Reserve(dataset.MaxLen(ex))
		}
		r, err := evaluate.Run(fmt.Sprintf("%d-%d", b.Min, b.Max), model.Classifier(net, refine), lang.PDA, ex)
		if err != nil {
			return nil, err
		}
		le.Results = append(le.Results, r)
	}
	return le, nil
}

// storedLengths evaluates the trained model of cfg's finished run on the
// bins, or reads that evaluation from the run's lengths.json when it was made
// with the same bins and test seed; a new evaluation is written there.
func (ls *lengthSets) storedLengths(s experiment.Store, cfg experiment.Config, bins []LengthBin) (*LengthErrors, error) {
	dir := s.RunDir(cfg.Key())
	path := filepath.Join(dir, LengthsFile)
	if b, err := limits.ReadFile(path, "lengths file", limits.RunFileBytes); err == nil {
		var le LengthErrors
		if json.Unmarshal(b, &le) == nil && slices.Equal(le.Bins, bins) && le.TestSeed == cfg.TestSeed && len(le.Results) == len(bins) {
			return &le, nil
		}
	}
	net, refine, err := model.Load(filepath.Join(dir, experiment.ModelFile))
	if err != nil {
		return nil, err
	}
	lang, err := grammar.Load(cfg.Grammar)
	if err != nil {
		return nil, err
	}
	le, err := ls.evaluate(net, refine, lang, bins, cfg.TestSeed)
	if err != nil {
		return nil, err
	}
	return le, atomicfile.WriteJSON(path, le)
}
