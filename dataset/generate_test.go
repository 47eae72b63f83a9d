package dataset

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nspda/nspda/grammar"
)

func TestDefaultSpec(t *testing.T) {
	want := map[string]Spec{
		"train":   {"train", 1987, 2021, 1, 21, false, false},
		"valid":   {"valid", 200, 200, 1, 21, false, false},
		"test60":  {"test60", 500, 500, 22, 60, true, false},
		"test480": {"test480", 500, 500, 61, 480, true, false},
		"test960": {"test960", 500, 500, 481, 960, true, false},
		"select":  {"select", 200, 200, 22, 40, false, false},
		"edit60":  {"edit60", 500, 500, 22, 60, true, true},
		"edit960": {"edit960", 500, 500, 481, 960, true, true},
	}
	for _, name := range Splits() {
		got, err := DefaultSpec(name)
		if err != nil || got != want[name] {
			t.Errorf("DefaultSpec(%q) = %+v, %v; want %+v", name, got, err, want[name])
		}
		if err := got.Validate(); err != nil {
			t.Errorf("default %s: %v", name, err)
		}
	}
	_, err := DefaultSpec("test")
	const msg = `unknown split "test" (valid: train, valid, test60, test480, test960, select, edit60, edit960)`
	if err == nil || err.Error() != msg {
		t.Errorf("DefaultSpec(test) error = %v, want %s", err, msg)
	}
}

// checkSplit verifies the invariants of any generated split.
func checkSplit(t *testing.T, lang *grammar.Language, spec Spec, ex []Example) Stats {
	t.Helper()
	if err := Check(lang, ex); err != nil {
		t.Fatalf("%s/%s: %v", lang.Name, spec.Split, err)
	}
	for _, e := range ex {
		if n := utf8.RuneCountInString(e.String); n < spec.MinLen || n > spec.MaxLen {
			t.Fatalf("%s/%s: %q has length %d outside %d..%d", lang.Name, spec.Split, e.String, n, spec.MinLen, spec.MaxLen)
		}
	}
	st := Summarize(ex)
	if spec.Edits {
		checkEdits(t, lang, spec, ex)
	} else if st.LengthOnlyAccuracy > 0.60 {
		t.Errorf("%s/%s: length-only accuracy %.3f > 0.60", lang.Name, spec.Split, st.LengthOnlyAccuracy)
	}
	if spec.Distinct {
		if st.Distinct != st.Examples {
			t.Errorf("%s/%s: %d distinct strings among %d", lang.Name, spec.Split, st.Distinct, st.Examples)
		}
		if st.Positives != st.Negatives {
			t.Errorf("%s/%s: %d positives, %d negatives; want balance", lang.Name, spec.Split, st.Positives, st.Negatives)
		}
	}
	return st
}

// checkEdits verifies that every negative of an edit split is one insertion
// into or one deletion from one of the split's positives.
func checkEdits(t *testing.T, lang *grammar.Language, spec Spec, ex []Example) {
	t.Helper()
	var pos []string
	for _, e := range ex {
		if e.Label == Positive {
			pos = append(pos, e.String)
		}
	}
	for _, e := range ex {
		if e.Label == Positive {
			continue
		}
		if !slices.ContainsFunc(pos, func(p string) bool { return oneEdit(p, e.String) }) {
			t.Fatalf("%s/%s: negative %q is not one insertion or deletion away from a positive", lang.Name, spec.Split, e.String)
		}
	}
}

// oneEdit reports whether b is a with one symbol inserted or deleted.
func oneEdit(a, b string) bool {
	x, y := []rune(a), []rune(b)
	if len(x) < len(y) {
		x, y = y, x
	}
	if len(x) != len(y)+1 {
		return false
	}
	i := 0
	for i < len(y) && x[i] == y[i] {
		i++
	}
	return slices.Equal(x[i+1:], y[i:])
}

func TestOneEdit(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{{"aabb", "aab", true}, {"aabb", "aabbb", true}, {"aabb", "abab", false}, {"ab", "ba", false}, {"ab", "b", true}, {"abc", "ac", true}, {"abc", "abc", false}} {
		if got := oneEdit(c.a, c.b); got != c.want {
			t.Errorf("oneEdit(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestEditSplitsHoldOtherLengths(t *testing.T) {
	ex, err := GenerateSplit(anbn(), "edit60", 1)
	if err != nil {
		t.Fatal(err)
	}
	odd := 0
	for _, e := range ex {
		if utf8.RuneCountInString(e.String)%2 == 1 {
			odd++
			if e.Label == Positive {
				t.Fatalf("anbn edit60: positive %q of odd length", e.String)
			}
		}
	}
	if st := Summarize(ex); odd != st.Negatives || st.Negatives != 20 {
		t.Errorf("anbn edit60: %d negatives, %d of odd length; want 20, all odd", st.Negatives, odd)
	}
}

func TestTrainFullSize(t *testing.T) {
	for _, lang := range testLanguages() {
		ex, err := GenerateSplit(lang, "train", 1)
		if err != nil {
			t.Fatal(err)
		}
		spec, _ := DefaultSpec("train")
		st := checkSplit(t, lang, spec, ex)
		if st.Positives != 1987 || st.Negatives != 2021 {
			t.Errorf("%s train: %d positives, %d negatives; want 1987, 2021", lang.Name, st.Positives, st.Negatives)
		}
	}
}

// TestAllSplits runs every split of every test language, checking labels,
// lengths, balance, distinctness and disjointness from train.
func TestAllSplits(t *testing.T) {
	for _, lang := range testLanguages() {
		runAllSplits(t, lang, 7)
	}
}

func runAllSplits(t *testing.T, lang *grammar.Language, seed uint64) {
	t.Helper()
	train, err := GenerateSplit(lang, "train", seed)
	if err != nil {
		t.Fatal(err)
	}
	inTrain := make(map[string]bool)
	for _, e := range train {
		inTrain[e.String] = true
	}
	for _, split := range Splits() {
		spec, _ := DefaultSpec(split)
		if spec.Edits {
			// Fewer strings: in a dense language (topaccept) most edits of a
			// long member are members, and each negative takes many tries.
			spec.Positives, spec.Negatives = 60, 60
		}
		ex, err := GenerateWith(lang, spec, seed)
		if err != nil {
			t.Fatalf("%s/%s: %v", lang.Name, split, err)
		}
		st := checkSplit(t, lang, spec, ex)
		t.Logf("%-10s %-8s %4d+%-4d length-only %.1f%%", lang.Name, split, st.Positives, st.Negatives, 100*st.LengthOnlyAccuracy)
		if !spec.Distinct {
			if st.Positives != spec.Positives || st.Negatives != spec.Negatives {
				t.Errorf("%s/%s: %d+%d examples, want %d+%d", lang.Name, split, st.Positives, st.Negatives, spec.Positives, spec.Negatives)
			}
			continue
		}
		for _, e := range ex {
			if inTrain[e.String] {
				t.Fatalf("%s/%s: %q is also in train", lang.Name, split, e.String)
			}
		}
	}
}

func TestShortfallStaysBalanced(t *testing.T) {
	ex, err := GenerateSplit(anbn(), "test60", 3)
	if err != nil {
		t.Fatal(err)
	}
	if st := Summarize(ex); st.Positives != 20 || st.Negatives != 20 || st.LengthOnlyAccuracy != 0.5 {
		t.Errorf("anbn test60: %d+%d, length-only %.3f; want 20+20 (all members of length 22..60), 0.5",
			st.Positives, st.Negatives, st.LengthOnlyAccuracy)
	}
}

func TestExclude(t *testing.T) {
	spec := Spec{Split: "x", Positives: 100, Negatives: 100, MinLen: 1, MaxLen: 21, Distinct: true}
	exclude := map[string]bool{"ab": true, "aabb": true, "abab": true}
	ex, err := Generate(anbn(), spec, 5, exclude)
	if err != nil {
		t.Fatal(err)
	}
	st := checkSplit(t, anbn(), spec, ex)
	if st.Positives != 8 || st.Negatives != 8 {
		t.Errorf("%d+%d examples, want 8+8 (10 members less 2 excluded)", st.Positives, st.Negatives)
	}
	for _, e := range ex {
		if exclude[e.String] {
			t.Errorf("excluded %q was emitted", e.String)
		}
	}
}

func generateBytes(t testing.TB, lang *grammar.Language, spec Spec, seed uint64) []byte {
	t.Helper()
	ex, err := Generate(lang, spec, seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteJSONL(&b, ex); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDeterministic(t *testing.T) {
	spec := Spec{Split: "train", Positives: 300, Negatives: 300, MinLen: 1, MaxLen: 21}
	other := spec
	other.Split = "valid"
	for _, lang := range testLanguages() {
		a := generateBytes(t, lang, spec, 42)
		if b := generateBytes(t, lang, spec, 42); !bytes.Equal(a, b) {
			t.Errorf("%s: two runs with seed 42 differ", lang.Name)
		}
		if b := generateBytes(t, lang, spec, 43); bytes.Equal(a, b) {
			t.Errorf("%s: seeds 42 and 43 give the same split", lang.Name)
		}
		if b := generateBytes(t, lang, other, 42); bytes.Equal(a, b) {
			t.Errorf("%s: splits train and valid with one seed are the same", lang.Name)
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	good := Spec{Split: "s", Positives: 10, Negatives: 10, MinLen: 1, MaxLen: 21}
	with := func(f func(*Spec)) Spec { s := good; f(&s); return s }
	noRec, noSample := anbn(), anbn()
	noRec.Recognize, noSample.Sample = nil, nil
	cases := []struct {
		lang *grammar.Language
		spec Spec
		want string
	}{
		{nil, good, "no language given"},
		{noRec, good, "language anbn has no recognizer"},
		{noSample, good, "language anbn has no sampler"},
		{anbn(), with(func(s *Spec) { s.Positives = -1 }), `split "s": positives -1 out of range 0..1048576`},
		{anbn(), with(func(s *Spec) { s.Negatives = MaxExamples + 1 }), `split "s": negatives 1048577 out of range 0..1048576`},
		{anbn(), with(func(s *Spec) { s.Positives, s.Negatives = MaxExamples/2+1, MaxExamples/2 }), `split "s": positives + negatives = 1048577 is more than the limit of 1048576`},
		{anbn(), with(func(s *Spec) { s.Positives = 0 }), `split "s": negatives take their lengths from positives, so positives must be at least 1`},
		{anbn(), with(func(s *Spec) { s.MinLen = 0 }), `split "s": minimum length 0 out of range 1..65536`},
		{anbn(), with(func(s *Spec) { s.MaxLen = 0 }), `split "s": maximum length 0 out of range 1..65536`},
		{anbn(), with(func(s *Spec) { s.MinLen, s.MaxLen = 3, 3 }), "language anbn has no member of length 3..3"},
		{liar(), good, "language liar: asked for a member of length "},
		{allStrings(), good, "language all: found no usable non-member of length "},
	}
	for _, c := range cases {
		_, err := Generate(c.lang, c.spec, 1, nil)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Generate(%v) error = %v, want %s", c.spec, err, c.want)
		}
	}
	if _, err := Generate(anbn(), good, 1, map[string]bool{"ab": true, "aabb": true, "aaabbb": true, "aaaabbbb": true, "aaaaabbbbb": true,
		"aaaaaabbbbbb": true, "aaaaaaabbbbbbb": true, "aaaaaaaabbbbbbbb": true, "aaaaaaaaabbbbbbbbb": true, "aaaaaaaaaabbbbbbbbbb": true}); err == nil ||
		err.Error() != "language anbn: every member of length 1..21 found is excluded" {
		t.Errorf("all members excluded: error = %v", err)
	}
}

func TestEmptySpec(t *testing.T) {
	ex, err := Generate(anbn(), Spec{Split: "s", MinLen: 3, MaxLen: 3}, 1, nil)
	if err != nil || len(ex) != 0 {
		t.Errorf("Generate with no examples = %v, %v; want none, nil", ex, err)
	}
}

// TestNearMisses measures how many anbn negatives are within edit distance 2
// of a member: substitutions and swaps (55% of draws) always are.
func TestNearMisses(t *testing.T) {
	ex, err := GenerateSplit(anbn(), "train", 11)
	if err != nil {
		t.Fatal(err)
	}
	near, neg := 0, 0
	for _, e := range ex {
		if e.Label == Negative {
			neg++
			if distanceToAnbn(e.String) <= 2 {
				near++
			}
		}
	}
	frac := float64(near) / float64(neg)
	t.Logf("anbn train: %.1f%% of negatives within edit distance 2 of a member", 100*frac)
	if frac < 0.55 {
		t.Errorf("only %.1f%% of negatives are within edit distance 2 of a member, want >= 55%%", 100*frac)
	}
}

// distanceToAnbn is the edit distance from s to the nearest a^k b^k.
func distanceToAnbn(s string) int {
	best := len(s) + 2
	for k := max(1, (len(s)-2)/2); k <= (len(s)+2)/2; k++ {
		best = min(best, levenshtein(s, strings.Repeat("a", k)+strings.Repeat("b", k)))
	}
	return best
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func TestStreamSeparatesSplitsAndLanguages(t *testing.T) {
	seen := make(map[uint64]string)
	for _, lang := range []string{"anbn", "dyck2"} {
		for _, split := range Splits() {
			v := Stream(lang, split, 1).Uint64()
			if prev, dup := seen[v]; dup {
				t.Errorf("%s/%s and %s start alike", lang, split, prev)
			}
			seen[v] = fmt.Sprint(lang, "/", split)
		}
	}
}

func BenchmarkGenerateTrain(b *testing.B) {
	lang := dyck2()
	for b.Loop() {
		if _, err := GenerateSplit(lang, "train", 1); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGenerateBeyondSamplerLimit: a spec-file language whose sampler cannot
// reach the asked lengths (its table would pass grammar.MaxSampleBits) says
// so, naming the bound, rather than that the language has no member there
// (a chain of 3000 states accepts a^3000).
func TestGenerateBeyondSamplerLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString("alphabet: [a, b]\nstart: q0\naccept: [q3000]\ntransitions:\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "  - [q%d, a, any, q%d, push]\n", i, i+1)
	}
	lang, err := grammar.FromSpec("chain.yaml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Generate(lang, Spec{Split: "s", Positives: 1, Negatives: 1, MinLen: 3000, MaxLen: 3000}, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "more than the limit of 268435456") || strings.Contains(err.Error(), "has no member") {
		t.Errorf("error %v; want the sampler's bound named", err)
	}
	// Within the bound, no member is still no member.
	_, err = Generate(lang, Spec{Split: "s", Positives: 1, Negatives: 1, MinLen: 5, MaxLen: 6}, 1, nil)
	if err == nil || err.Error() != "language chain has no member of length 5..6" {
		t.Errorf("error %v", err)
	}
}
