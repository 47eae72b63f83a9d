package experiment

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/nn"
)

// dataHidden is the number of state or hidden units of a run on data files
// when none is given: with no automaton there is no state count for the
// paper's rule.
const dataHidden = 8

// wideDataHidden is dataHidden under the "wide" size rule (Config.Size):
// the middle of its range for a three-state automaton.
const wideDataHidden = 20

// testSet is one labelled set a finished run is evaluated on.
type testSet struct {
	name string
	ex   []dataset.Example
}

// dataLanguage returns the language of a run on data files: no automaton,
// only an alphabet (cfg.Alphabet, or every symbol of the files in sorted
// order) and a PDA without transitions that serves to encode strings.
func dataLanguage(cfg Config) (*grammar.Language, error) {
	alphabet := []rune(cfg.Alphabet)
	if len(alphabet) == 0 {
		seen := map[rune]bool{}
		for _, path := range cfg.dataFiles() {
			ex, err := dataset.ReadFile(path)
			if err != nil {
				return nil, err
			}
			for _, e := range ex {
				for _, r := range e.String {
					seen[r] = true
				}
			}
		}
		for r := range seen {
			alphabet = append(alphabet, r)
		}
		slices.Sort(alphabet)
	}
	if len(alphabet) == 0 {
		return nil, fmt.Errorf("%s: no symbols in the data", cfg.Data)
	}
	p, err := grammar.New(grammar.PDA{Name: "data", Alphabet: alphabet, States: []string{"q0"}, Accept: []bool{false}})
	if err != nil {
		return nil, fmt.Errorf("the alphabet of the data: %v", err)
	}
	return &grammar.Language{Name: "data", Description: "labelled strings of " + cfg.Data, PDA: p}, nil
}

// dataFiles lists every data file of cfg.
func (c Config) dataFiles() []string {
	var files []string
	for _, f := range append([]string{c.Data, c.ValidData, c.SelectData}, c.TestData...) {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}

// readData reads a data file and checks that its strings are over the
// alphabet of lang.
func readData(lang *grammar.Language, path string) ([]dataset.Example, error) {
	if path == "" {
		return nil, nil
	}
	ex, err := dataset.ReadFile(path)
	if err != nil {
		return nil, err
	}
	for i, e := range ex {
		if _, err := lang.PDA.Encode(e.String); err != nil {
			return nil, fmt.Errorf("%s: example %d: %v", path, i+1, err)
		}
	}
	return ex, nil
}

// splits returns the training, validation and selection strings of cfg:
// read from its data files, or drawn from lang by the data protocol (the
// selection split only with Patience).
func splits(cfg Config, lang *grammar.Language) (trainSet, validSet, selSet []dataset.Example, err error) {
	if cfg.Data != "" {
		if trainSet, err = readData(lang, cfg.Data); err != nil {
			return nil, nil, nil, err
		}
		if len(trainSet) == 0 {
			return nil, nil, nil, fmt.Errorf("%s: no training strings", cfg.Data)
		}
		if validSet, err = readData(lang, cfg.ValidData); err != nil {
			return nil, nil, nil, err
		}
		selSet, err = readData(lang, cfg.SelectData)
		return trainSet, validSet, selSet, err
	}
	trainSpec, _ := dataset.DefaultSpec("train")
	if cfg.Positives > 0 {
		trainSpec.Positives = cfg.Positives
	}
	if cfg.Negatives > 0 {
		trainSpec.Negatives = cfg.Negatives
	}
	if trainSet, err = dataset.GenerateWith(lang, trainSpec, cfg.DataSeed); err != nil {
		return nil, nil, nil, err
	}
	if validSet, err = dataset.GenerateSplit(lang, "valid", cfg.DataSeed); err != nil {
		return nil, nil, nil, err
	}
	if cfg.Edits > 0 {
		spec := trainSpec
		spec.Split, spec.Positives, spec.Negatives, spec.Edits = "train-edits", cfg.Edits, cfg.Edits, true
		if trainSet, err = withEdits(lang, trainSet, spec, cfg.DataSeed); err != nil {
			return nil, nil, nil, err
		}
	}
	if cfg.Patience > 0 {
		spec := selectSpec
		if cfg.SelectMax > 0 {
			spec.MaxLen = cfg.SelectMax
		}
		if selSet, err = dataset.GenerateWith(lang, spec, cfg.DataSeed); err != nil {
			return nil, nil, nil, err
		}
		if cfg.Edits > 0 {
			spec.Split, spec.Edits = "select-edits", true
			selSet, err = withEdits(lang, selSet, spec, cfg.DataSeed)
		}
	}
	return trainSet, validSet, selSet, err
}

// withEdits returns set followed by the edit split spec (Config.Edits).
func withEdits(lang *grammar.Language, set []dataset.Example, spec dataset.Spec, seed uint64) ([]dataset.Example, error) {
	ex, err := dataset.GenerateWith(lang, spec, seed)
	if err != nil {
		return nil, err
	}
	return append(slices.Clip(set), ex...), nil
}

// testSplit draws the named test split of a run: the only way training
// reaches a test set (a variable, so that a test can prove the fair search
// never calls it).
var testSplit = dataset.GenerateSplit

// tests returns the sets a finished run is evaluated on: the named splits
// drawn with the test seed, or the test files, each whole and then by the
// length bands of LengthBins (with the training lengths below them and the
// longer strings above).
func tests(cfg Config, lang *grammar.Language) ([]testSet, error) {
	if cfg.Data == "" {
		var sets []testSet
		for _, name := range cfg.Tests {
			ex, err := testSplit(lang, name, cfg.TestSeed)
			if err != nil {
				return nil, err
			}
			sets = append(sets, testSet{name, ex})
		}
		return sets, nil
	}
	var sets []testSet
	for _, path := range cfg.TestData {
		ex, err := readData(lang, path)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		sets = append(sets, testSet{name, ex})
		sets = append(sets, byLength(name, ex)...)
	}
	return sets, nil
}

// bandEdges are the first lengths of byLength's bands, and one past the
// last.
var bandEdges = []int{1, 22, 61, 121, 241, 481, 961, dataset.MaxLength + 1}

// byLength splits ex into the bands 1–21, 22–60, 61–120, 121–240, 241–480,
// 481–960 and 961+, leaving out empty bands.
func byLength(name string, ex []dataset.Example) []testSet {
	edges := bandEdges
	var sets []testSet
	for i := 0; i+1 < len(edges); i++ {
		var band []dataset.Example
		for _, e := range ex {
			if n := len([]rune(e.String)); n >= edges[i] && n < edges[i+1] {
				band = append(band, e)
			}
		}
		if len(band) == 0 {
			continue
		}
		hi := fmt.Sprint(edges[i+1] - 1)
		if i+2 == len(edges) {
			hi = ""
		}
		sets = append(sets, testSet{fmt.Sprintf("%s[%d-%s]", name, edges[i], hi), band})
	}
	return sets
}

// evaluateSets classifies every test set with net's classifiers, refine
// iterations per symbol (evaluate.RunSets: the same results for any number
// of workers). A net that makes independent classifiers (nn.ClassifierMaker,
// the NSPDA's Runner) classifies on workers goroutines, any other on one.
func evaluateSets(sets []testSet, lang *grammar.Language, net nn.Model, refine, workers int) ([]evaluate.Result, error) {
	all := make([]evaluate.Set, len(sets))
	var every []dataset.Example
	for i, t := range sets {
		all[i] = evaluate.Set{Name: t.name, Ex: t.ex}
		every = append(every, t.ex...)
	}
	reserve(net, every)
	if _, ok := net.(nn.ClassifierMaker); !ok {
		workers = 1 // its classifiers share the net's memory
	}
	return evaluate.RunSets(all, func() evaluate.Classifier { return model.Classifier(net, refine) }, lang.PDA, workers)
}
