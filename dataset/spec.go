package dataset

import (
	"fmt"
	"strings"

	"github.com/nspda/nspda/internal/limits"
)

// Example is one labelled string, a line of a JSONL file.
type Example struct {
	String string `json:"string"`
	Label  int    `json:"label"` // Positive or Negative
}

// Labels of an Example.
const (
	Negative = 0 // the string is not in the language
	Positive = 1 // the string is in the language
)

// Limits on a Spec, far beyond the paper's, that keep a mistyped number from
// exhausting memory: those of package limits, so that every split generate
// writes is a file ReadJSONL reads.
const (
	MaxExamples = limits.Strings   // most positives and negatives, together, in one split
	MaxLength   = limits.StringLen // longest string
)

// Spec says what one split holds. The zero value is not valid; start from
// DefaultSpec and override fields.
type Spec struct {
	Split     string // name of the split; it seeds the split's random stream
	Positives int    // target number of positive examples
	Negatives int    // target number of negative examples
	MinLen    int    // shortest string, at least 1
	MaxLen    int    // longest string
	Distinct  bool   // all strings distinct (the test splits)
	// Edits makes each negative one insertion into or one deletion from a
	// positive of the split, at whatever length that gives within
	// MinLen..MaxLen, instead of a near-miss of a positive's own length. Not
	// the paper's: it probes the lengths at which the language has no
	// member, which length-matched negatives never show (docs/results.md).
	Edits bool
}

var defaults = []Spec{
	{Split: "train", Positives: 1987, Negatives: 2021, MinLen: 1, MaxLen: 21},
	{Split: "valid", Positives: 200, Negatives: 200, MinLen: 1, MaxLen: 21},
	{Split: "test60", Positives: 500, Negatives: 500, MinLen: 22, MaxLen: 60, Distinct: true},
	{Split: "test480", Positives: 500, Negatives: 500, MinLen: 61, MaxLen: 480, Distinct: true},
	{Split: "test960", Positives: 500, Negatives: 500, MinLen: 481, MaxLen: 960, Distinct: true},
	// Not the paper's: a selection set of strings longer than the training
	// set's, drawn with the training data's seed (docs/training.md).
	{Split: "select", Positives: 200, Negatives: 200, MinLen: 22, MaxLen: 40},
	// Not the paper's: one-edit neighbours of members at any length,
	// including the lengths the paper's sets never hold (Spec.Edits).
	{Split: "edit60", Positives: 500, Negatives: 500, MinLen: 22, MaxLen: 60, Distinct: true, Edits: true},
	{Split: "edit960", Positives: 500, Negatives: 500, MinLen: 481, MaxLen: 960, Distinct: true, Edits: true},
}

// Splits returns the names of the paper's splits, in the order of DefaultSpec's
// table: train, valid, test60, test480, test960.
func Splits() []string {
	names := make([]string, len(defaults))
	for i, d := range defaults {
		names[i] = d.Split
	}
	return names
}

// DefaultSpec returns the paper's specification of the named split. An
// unknown name is an error that lists the valid ones.
func DefaultSpec(split string) (Spec, error) {
	for _, d := range defaults {
		if d.Split == split {
			return d, nil
		}
	}
	return Spec{}, fmt.Errorf("unknown split %q (valid: %s)", split, strings.Join(Splits(), ", "))
}

// Validate reports the first field of s that is out of range.
func (s Spec) Validate() error {
	switch {
	case s.Positives < 0 || s.Positives > MaxExamples:
		return fmt.Errorf("split %q: positives %d out of range 0..%d", s.Split, s.Positives, MaxExamples)
	case s.Negatives < 0 || s.Negatives > MaxExamples:
		return fmt.Errorf("split %q: negatives %d out of range 0..%d", s.Split, s.Negatives, MaxExamples)
	case s.Positives+s.Negatives > MaxExamples:
		return fmt.Errorf("split %q: positives + negatives = %d is more than the limit of %d", s.Split, s.Positives+s.Negatives, MaxExamples)
	case s.Positives == 0 && s.Negatives > 0:
		return fmt.Errorf("split %q: negatives take their lengths from positives, so positives must be at least 1", s.Split)
	case s.MinLen < 1 || s.MinLen > MaxLength:
		return fmt.Errorf("split %q: minimum length %d out of range 1..%d", s.Split, s.MinLen, MaxLength)
	case s.MaxLen < s.MinLen || s.MaxLen > MaxLength:
		return fmt.Errorf("split %q: maximum length %d out of range %d..%d", s.Split, s.MaxLen, s.MinLen, MaxLength)
	}
	return nil
}
