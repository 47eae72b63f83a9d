package dataset

import (
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	ex := []Example{{"ab", 1}, {"ab", 1}, {"ba", 0}, {"aabb", 1}, {"abab", 0}, {"abba", 0}, {"a", 0}}
	s := Summarize(ex)
	want := Stats{
		Examples: 7, Positives: 3, Negatives: 4, Distinct: 6,
		MinLen: 1, MaxLen: 4, MeanLen: 19.0 / 7,
		Lengths: []LengthCount{{1, 0, 1}, {2, 2, 1}, {4, 1, 2}},
		// max per length: 1 + 2 + 2 = 5 of 7
		LengthOnlyAccuracy: 5.0 / 7,
	}
	if math.Abs(s.MeanLen-want.MeanLen) > 1e-12 {
		t.Errorf("MeanLen = %v, want %v", s.MeanLen, want.MeanLen)
	}
	s.MeanLen = want.MeanLen
	if !reflect.DeepEqual(s, want) {
		t.Errorf("Summarize = %+v\nwant %+v", s, want)
	}
	if z := Summarize(nil); z.Examples != 0 || z.LengthOnlyAccuracy != 0 || z.String() != "examples: 0 (0 positive, 0 negative), 0 distinct strings\n" {
		t.Errorf("Summarize(nil) = %+v, %q", z, z.String())
	}
}

func TestReport(t *testing.T) {
	ex := []Example{{"ab", 1}, {"ba", 0}, {"aabb", 1}, {"abba", 0}, {"abb", 0}}
	var b strings.Builder
	if err := Summarize(ex).Report(&b); err != nil {
		t.Fatal(err)
	}
	const want = `examples: 5 (2 positive, 3 negative), 5 distinct strings
length: min 2, max 4, mean 3.0
length    positive negative
2                1        1
3                0        1
4                1        1
length-only classifier accuracy: 60.0%
`
	if b.String() != want {
		t.Errorf("Report wrote\n%s\nwant\n%s", b.String(), want)
	}
}

func TestBucketWidth(t *testing.T) {
	for _, c := range []struct{ span, want int }{{1, 1}, {21, 1}, {22, 2}, {39, 2}, {420, 20}, {421, 50}, {480, 50}, {1000, 50}, {5000, 500}} {
		if got := bucketWidth(c.span); got != c.want {
			t.Errorf("bucketWidth(%d) = %d, want %d", c.span, got, c.want)
		}
	}
}

func TestReportTest960IsCompact(t *testing.T) {
	ex, err := GenerateSplit(dyck2(), "test960", 1)
	if err != nil {
		t.Fatal(err)
	}
	report := Summarize(ex).String()
	if n := strings.Count(report, "\n"); n > maxRows+4 {
		t.Errorf("test960 report has %d lines:\n%s", n, report)
	}
	if testing.Verbose() {
		os.Stdout.WriteString(report)
	}
}

func ExampleStats_Report() {
	ex := []Example{{"ab", 1}, {"ba", 0}, {"aabb", 1}, {"abab", 0}, {"aab", 0}}
	Summarize(ex).Report(os.Stdout)
	// Output:
	// examples: 5 (2 positive, 3 negative), 5 distinct strings
	// length: min 2, max 4, mean 3.0
	// length    positive negative
	// 2                1        1
	// 3                0        1
	// 4                1        1
	// length-only classifier accuracy: 60.0%
}
