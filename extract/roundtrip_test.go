package extract

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/program"
)

// languages returns every built-in language and every PDA in grammar/testdata.
func languages(t testing.TB) []*grammar.Language {
	t.Helper()
	var out []*grammar.Language
	for _, name := range grammar.Names() {
		l, _ := grammar.Builtin(name)
		out = append(out, l)
	}
	files, err := filepath.Glob("../grammar/testdata/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no PDAs in grammar/testdata: %v", err)
	}
	for _, f := range files {
		l, err := grammar.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		l.Name = "testdata/" + filepath.Base(f)
		out = append(out, l)
	}
	return out
}

func labelled(t testing.TB, lang *grammar.Language, split string) []Labelled {
	t.Helper()
	set, err := dataset.GenerateSplit(lang, split, 1)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]Labelled, len(set))
	for i, e := range set {
		out[i] = Labelled{e.String, e.Label == dataset.Positive}
	}
	return out
}

// TestRoundTrip: for every language and both orders, extract(program(P))
// agrees with P on every string up to length 10 (9 for four symbols) and on
// test960; programming the extracted PDA again gives 0 errors on test960;
// and the extracted PDA has no more states than P.
func TestRoundTrip(t *testing.T) {
	for _, lang := range languages(t) {
		test960 := labelled(t, lang, "test960")
		for _, order := range []nspda.Order{nspda.Second, nspda.Third} {
			t.Run(fmt.Sprintf("%s/order%d", lang.Name, order), func(t *testing.T) {
				prog, err := program.Compile(lang.PDA, program.Options{Order: order})
				if err != nil {
					t.Fatal(err)
				}
				m := prog.Model()
				r := Extract(m, Options{})
				if r.Err != nil {
					t.Fatalf("extract: %s", r.Message)
				}
				maxLen := 10
				if lang.PDA.L() > 3 {
					maxLen = 9
				}
				if testing.Short() {
					maxLen -= 3
				}
				c := Exhaustive(m, 1, r.PDA, lang.PDA, maxLen)
				if err := c.Set("test960", m, 1, r.PDA, test960); err != nil {
					t.Fatal(err)
				}
				for _, a := range c.Agreements {
					if a.NetworkDisagree != 0 || a.TargetDisagree != 0 {
						t.Errorf("%+v; counterexamples %v %v\n%s", a, c.NetworkCounter, c.TargetCounter, r.PDA.MarshalSpec())
						break
					}
				}
				if r.PDA.M() > lang.PDA.M() {
					t.Errorf("%d states, the PDA programmed has %d\n%s", r.PDA.M(), lang.PDA.M(), r.PDA.MarshalSpec())
				}
				again, err := program.Compile(r.PDA, program.Options{Order: order})
				if err != nil {
					t.Fatalf("programming the extracted PDA: %v", err)
				}
				run := again.Model().NewRunner()
				errs := 0
				for _, s := range test960 {
					syms, _ := r.PDA.Encode(s.String)
					if ok, _ := run.Classify(syms); ok != s.Member {
						errs++
					}
				}
				if errs != 0 {
					t.Errorf("the extracted PDA programmed again: %d errors on test960", errs)
				}
				t.Logf("explored %d, pairs %d, live %d, states %d", r.Explored, r.Pairs, r.Live, r.PDA.M())
			})
		}
	}
}
