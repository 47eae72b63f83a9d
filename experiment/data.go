package experiment

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

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

// checkLabels refuses a string labelled both ways in the files (sets[i]
// read from paths[i]), in one file or across them: the training would
// pull the same output two ways, and selection would count an error
// whatever the weights. Example i of a file is on its line i+1
// (dataset.ReadFile).
func checkLabels(paths []string, sets [][]dataset.Example) error {
	type origin struct {
		file, line int
		label      int
	}
	seen := make(map[string]origin)
	for f, set := range sets {
		for i, e := range set {
			o, ok := seen[e.String]
			if !ok {
				seen[e.String] = origin{f, i + 1, e.Label}
				continue
			}
			if o.label != e.Label {
				return fmt.Errorf("%s:%d: string %s is labelled %d, and %d on %s:%d",
					paths[f], i+1, QuoteShort(e.String), e.Label, o.label, paths[o.file], o.line)
			}
		}
	}
	return nil
}

// holdOut splits ex into the strings to train on and the longest pct
// percent of them (at least one, ties to the earlier line) to select
// weights on, each in the file's order: lacking longer strings, the longest
// it has are the ones that show best whether a network counts or guesses.
func holdOut(ex []dataset.Example, pct int) (trainSet, selSet []dataset.Example) {
	order := make([]int, len(ex))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return utf8.RuneCountInString(ex[b].String) - utf8.RuneCountInString(ex[a].String)
	})
	n := min(len(ex)-1, max(1, len(ex)*pct/100))
	held := make([]bool, len(ex))
	for _, i := range order[:n] {
		held[i] = true
	}
	for i, e := range ex {
		if held[i] {
			selSet = append(selSet, e)
		} else {
			trainSet = append(trainSet, e)
		}
	}
	return trainSet, selSet
}

// QuoteShort quotes s, keeping a message or a table cell one readable
// line: a string of more than 40 symbols is cut to its first 30 and its
// length.
func QuoteShort(s string) string {
	if r := []rune(s); len(r) > 40 {
		return fmt.Sprintf("%q... (%d symbols)", string(r[:30]), len(r))
	}
	return strconv.Quote(s)
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
		if selSet, err = readData(lang, cfg.SelectData); err != nil {
			return nil, nil, nil, err
		}
		if err = checkLabels([]string{cfg.Data, cfg.ValidData, cfg.SelectData}, [][]dataset.Example{trainSet, validSet, selSet}); err != nil {
			return nil, nil, nil, err
		}
		if cfg.HoldOut > 0 {
			if len(trainSet) < 2 {
				return nil, nil, nil, fmt.Errorf("%s: one training string, none to hold out for selection: give --select or --hold-out 0", cfg.Data)
			}
			trainSet, selSet = holdOut(trainSet, cfg.HoldOut)
		}
		return trainSet, validSet, selSet, nil
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
