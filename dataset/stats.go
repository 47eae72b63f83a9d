package dataset

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// LengthCount is the number of positive and negative examples of one length.
type LengthCount struct {
	Length, Positives, Negatives int
}

// Stats summarises a split.
type Stats struct {
	Examples, Positives, Negatives int
	Distinct                       int // distinct strings
	MinLen, MaxLen                 int // 0 when there are no examples
	MeanLen                        float64
	Lengths                        []LengthCount // one per length present, by increasing length

	// LengthOnlyAccuracy is the best accuracy of a classifier that sees only
	// a string's length: the sum over lengths T of max(pos_T, neg_T), over
	// the number of examples (0 when there are none).
	LengthOnlyAccuracy float64
}

// Summarize computes the Stats of ex, measuring lengths in runes. A label
// other than Positive counts as negative.
func Summarize(ex []Example) Stats {
	s := Stats{Examples: len(ex)}
	seen := make(map[string]bool, len(ex))
	by := make(map[int]*LengthCount)
	total := 0
	for _, e := range ex {
		seen[e.String] = true
		n := utf8.RuneCountInString(e.String)
		total += n
		c := by[n]
		if c == nil {
			c = &LengthCount{Length: n}
			by[n] = c
		}
		if e.Label == Positive {
			s.Positives++
			c.Positives++
		} else {
			s.Negatives++
			c.Negatives++
		}
	}
	s.Distinct = len(seen)
	s.setLengths(by, total)
	return s
}

// MaxLen is the length in runes of the longest string of ex (0 if there are
// none).
func MaxLen(ex []Example) int {
	n := 0
	for _, e := range ex {
		n = max(n, utf8.RuneCountInString(e.String))
	}
	return n
}

// setLengths fills the length fields from the per-length counts.
func (s *Stats) setLengths(by map[int]*LengthCount, total int) {
	if s.Examples == 0 {
		return
	}
	best := 0
	for _, c := range by {
		s.Lengths = append(s.Lengths, *c)
		best += max(c.Positives, c.Negatives)
	}
	slices.SortFunc(s.Lengths, func(a, b LengthCount) int { return a.Length - b.Length })
	s.MinLen = s.Lengths[0].Length
	s.MaxLen = s.Lengths[len(s.Lengths)-1].Length
	s.MeanLen = float64(total) / float64(s.Examples)
	s.LengthOnlyAccuracy = float64(best) / float64(s.Examples)
}

// maxRows bounds the rows of the histogram in a report, so that the train
// split's 21 lengths get one row each and longer ranges of lengths are grouped
// into buckets of a round width.
const maxRows = 22

// Report writes a compact human-readable summary: counts, distinct strings,
// lengths, a length histogram (bucketed when the range is long) and the
// length-only classifier accuracy.
func (s Stats) Report(w io.Writer) error {
	_, err := io.WriteString(w, s.String())
	return err
}

// String returns the report that Report writes.
func (s Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "examples: %d (%d positive, %d negative), %d distinct strings\n",
		s.Examples, s.Positives, s.Negatives, s.Distinct)
	if s.Examples == 0 {
		return b.String()
	}
	fmt.Fprintf(&b, "length: min %d, max %d, mean %.1f\n", s.MinLen, s.MaxLen, s.MeanLen)
	s.histogram(&b)
	fmt.Fprintf(&b, "length-only classifier accuracy: %.1f%%\n", 100*s.LengthOnlyAccuracy)
	return b.String()
}

// histogram writes one row per bucket of lengths from MinLen to MaxLen.
func (s Stats) histogram(b *strings.Builder) {
	width := bucketWidth(s.MaxLen - s.MinLen + 1)
	rows := make(map[int]*LengthCount)
	for _, c := range s.Lengths {
		k := c.Length / width
		if rows[k] == nil {
			rows[k] = &LengthCount{}
		}
		rows[k].Positives += c.Positives
		rows[k].Negatives += c.Negatives
	}
	fmt.Fprintf(b, "%-9s %8s %8s\n", "length", "positive", "negative")
	for k := s.MinLen / width; k <= s.MaxLen/width; k++ {
		c := rows[k]
		if c == nil {
			c = &LengthCount{}
		}
		fmt.Fprintf(b, "%-9s %8d %8d\n", s.bucketName(k, width), c.Positives, c.Negatives)
	}
}

// bucketName labels bucket k, clipped to the range of lengths present.
func (s Stats) bucketName(k, width int) string {
	lo, hi := max(k*width, s.MinLen), min((k+1)*width-1, s.MaxLen)
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

// bucketWidth returns the smallest of 1, 2, 5, 10, 20, 50, ... whose aligned
// buckets cover any span consecutive lengths in at most maxRows rows.
func bucketWidth(span int) int {
	for scale := 1; scale < math.MaxInt/10; scale *= 10 {
		for _, m := range []int{1, 2, 5} {
			if w := m * scale; (span-1)/w+2 <= maxRows {
				return w
			}
		}
	}
	return math.MaxInt / 10
}
