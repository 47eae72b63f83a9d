package experiment

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/nspda/nspda/dataset"
)

// sparsePerPair is how many distinct positive training strings per ordered
// pair of symbols a run on data needs before SparseData stops warning: it
// warns below sparsePerPair·L² positives over L symbols (8 over two
// symbols, 18 over three, 32 over four). A PDA of the class the NSPDA
// emulates decides every step by the input and the stack's top, a pair of
// symbols, and a learner tells a rule of such a pair from a coincidence
// only when more than one member shows it. The measured cases it separates:
// aⁿbⁿ learns exactly from its 10 members of length ≤ 20 (docs/extraction.md,
// "Grammatical inference end to end"; 10 ≥ 8); the three-symbol aⁿbⁿcbᵐaᵐ
// and aⁿ⁺ᵐbⁿcᵐ learn from their 45 (≥ 18); aⁿbᵐcᵐdⁿ, four symbols, left
// 8.4% held-out error from its 25 (< 32; issue 43).
const sparsePerPair = 2

// Sparse describes training data with few distinct members of the language.
type Sparse struct {
	File      string // the training file
	Positives int    // its distinct strings labelled positive
	MinLen    int    // their shortest length
	MaxLen    int    // their longest
	Symbols   int    // the alphabet's size, over every data file
	Threshold int    // sparsePerPair·Symbols²: fewer positives than this is sparse
	Select    string // the select file, if given
	SelectPos int    // its distinct positives
	SelectMax int    // their longest length
}

// SparseData reports whether the training data of a run on data files
// (cfg.Data) has few distinct positive strings for its alphabet
// (sparsePerPair), and nil when it has enough or the run is on a grammar.
// The count is of the whole training file, held-out strings included: it is
// what the user gave.
func SparseData(cfg Config) (*Sparse, error) {
	if cfg.Data == "" {
		return nil, nil
	}
	lang, err := dataLanguage(cfg)
	if err != nil {
		return nil, err
	}
	// The files are read and checked as Train reads them, so that bad
	// input gets Train's error before any warning.
	ex, _, sel, err := splits(cfg, lang)
	if err != nil {
		return nil, err
	}
	if cfg.SelectData == "" {
		ex = append(ex, sel...) // the strings held out of the training file
	}
	s := &Sparse{File: cfg.Data, Symbols: lang.PDA.L()}
	s.Threshold = sparsePerPair * s.Symbols * s.Symbols
	s.Positives, s.MinLen, s.MaxLen = positives(ex)
	if s.Positives >= s.Threshold {
		return nil, nil
	}
	if cfg.SelectData != "" {
		s.Select = cfg.SelectData
		s.SelectPos, _, s.SelectMax = positives(sel)
	}
	return s, nil
}

// positives counts the distinct positive strings of ex and their shortest
// and longest lengths (0, 0 when there are none).
func positives(ex []dataset.Example) (n, minLen, maxLen int) {
	seen := map[string]bool{}
	for _, e := range ex {
		if e.Label != dataset.Positive || seen[e.String] {
			continue
		}
		seen[e.String] = true
		l := utf8.RuneCountInString(e.String)
		if n == 0 || l < minLen {
			minLen = l
		}
		maxLen = max(maxLen, l)
		n++
	}
	return n, minLen, maxLen
}

// Warning is what a run says about sparse data when it starts: two lines,
// what the data holds and what helps.
func (s *Sparse) Warning() string {
	var b strings.Builder
	lengths := fmt.Sprintf("lengths %d–%d", s.MinLen, s.MaxLen)
	if s.Positives == 0 {
		lengths = "none"
	}
	fmt.Fprintf(&b, "sparse data: %s has %d distinct positive strings (%s) over %d symbols, fewer than %d; a network can fit so few without learning the language\n",
		filepath.Base(s.File), s.Positives, lengths, s.Symbols, s.Threshold)
	from := s.MaxLen + 1
	if s.Select == "" {
		fmt.Fprintf(&b, "longer labelled strings help, e.g. a --select file of strings of length %d–200; `nspda generate --split select --min-len %d --max-len 200` writes one for a PDA file\n", from, from)
	} else {
		fmt.Fprintf(&b, "longer labelled strings help: %s adds %d distinct positives (up to length %d); more of them, or longer, in --data or --select\n",
			filepath.Base(s.Select), s.SelectPos, s.SelectMax)
	}
	return b.String()
}
