package dataset

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/nspda/nspda/grammar"
)

// Check verifies every label against lang.Recognize. The error names the
// first bad example by its line (index+1, its line in a JSONL file) and string.
func Check(lang *grammar.Language, ex []Example) error {
	if lang == nil || lang.Recognize == nil {
		return errors.New("no language with a recognizer to check against")
	}
	for i, e := range ex {
		if e.Label != Positive && e.Label != Negative {
			return fmt.Errorf("line %d: label %d of %s is not 0 or 1", i+1, e.Label, shorten(e.String))
		}
		in := lang.Recognize(e.String)
		if in != (e.Label == Positive) {
			return fmt.Errorf("line %d: %s is labelled %d but %s", i+1, shorten(e.String), e.Label, verdict(lang.Name, in))
		}
	}
	return nil
}

func verdict(name string, in bool) string {
	if in {
		return "is in " + name
	}
	return "is not in " + name
}

// shortLen is the most symbols of a string quoted in an error message.
const shortLen = 40

// shorten quotes s for an error message, eliding the middle of a long string.
func shorten(s string) string {
	n := utf8.RuneCountInString(s)
	if n <= shortLen {
		return strconv.Quote(s)
	}
	r := []rune(s)
	return fmt.Sprintf("%s...%s (%d symbols)", strconv.Quote(string(r[:shortLen/2])), strconv.Quote(string(r[n-shortLen/4:])), n)
}
