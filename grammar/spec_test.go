package grammar

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nspda/nspda/internal/limits"
	"github.com/nspda/nspda/internal/testutil"
)

// anbnSpec is a valid spec; the error cases below are edits of it.
const anbnSpec = `name: anbn
alphabet: [a, b]
start: q0
accept: [q2]
accept_empty_stack: true
transitions:
  - [q0, a, empty, q1, push]
  - [q1, a, a, q1, push]
  - [q1, b, a, q2, pop]
  - [q2, b, a, q2, pop]
`

// withTops returns anbnSpec with "accept_with_top: " + tops after
// accept_empty_stack (on line 6; its entries from line 7).
func withTops(tops string) string {
	return edit("accept_empty_stack: true\n", "accept_empty_stack: true\naccept_with_top: "+tops+"\n")
}

// edit returns anbnSpec with old replaced by new (which must occur).
func edit(old, new string) string {
	if !strings.Contains(anbnSpec, old) {
		panic("edit: " + old + " not in anbnSpec")
	}
	return strings.Replace(anbnSpec, old, new, 1)
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, spec, want string
	}{
		{"empty file", "", `g.yaml:1: empty file`},
		{"only comments", "# nothing\n", `g.yaml:1: empty file`},
		{"not a mapping", "- a\n- b\n", `g.yaml:1: the spec must be a mapping`},
		{"malformed flow list", edit("[a, b]", "[a, b"), `g.yaml:2: malformed YAML: did not find expected ',' or ']'`},
		{"malformed indentation", edit("start: q0", "start: q0\n  x: y"), `g.yaml:4: malformed YAML: mapping values are not allowed`},
		{"tab", edit("start: q0", "\tstart: q0"), `g.yaml:3: malformed YAML: found character that cannot start any token`},
		{"two documents", anbnSpec + "---\nname: x\n", `g.yaml:11: a second YAML document`},
		{"unknown field", edit("start: q0", "start: q0\nstates: [q0]"), `g.yaml:4: unknown field "states" (want name, alphabet, start, accept, accept_empty_stack, accept_with_top, transitions)`},
		{"field twice", edit("start: q0", "start: q0\nstart: q1"), `g.yaml:4: field "start" is given twice (first on line 3)`},
		{"missing alphabet", edit("alphabet: [a, b]\n", ""), `g.yaml:1: missing field "alphabet"`},
		{"missing start", edit("start: q0\n", ""), `g.yaml:1: missing field "start"`},
		{"missing accept", edit("accept: [q2]\n", ""), `g.yaml:1: missing field "accept"`},
		{"missing transitions", anbnSpec[:strings.Index(anbnSpec, "transitions")], `g.yaml:1: missing field "transitions"`},
		{"empty alphabet", edit("[a, b]", "[]"), `g.yaml:1: alphabet is empty`},
		{"alphabet not a list", edit("[a, b]", "ab"), `g.yaml:2: alphabet must be a list of symbols such as [a, b], got "ab"`},
		{"duplicate symbol", edit("[a, b]", "[a, b,\n  a]"), `g.yaml:3: symbol "a" appears twice in the alphabet`},
		{"multi-character symbol", edit("[a, b]", "[a, bb]"), `g.yaml:2: symbol "bb" must be a single character`},
		{"reserved symbol", edit("[a, b]", "[a, $]"), `g.yaml:2: symbol "$" is reserved for the end-of-string marker`},
		{"quote symbol", edit("[a, b]", `[a, '"']`), `g.yaml:2: symbol "\"" cannot be used`},
		{"empty symbol", edit("[a, b]", `[a, '']`), `g.yaml:2: each entry of alphabet must be a single value, got ""`},
		{"start is a list", edit("start: q0", "start: [q0]"), `g.yaml:3: start must be a single value, got a list`},
		{"bad bool", edit("true", "yes"), `g.yaml:5: accept_empty_stack must be true or false, got "yes"`},
		{"transitions not a list", anbnSpec[:strings.Index(anbnSpec, "transitions")] + "transitions: 3\n", `g.yaml:6: transitions must be a non-empty list`},
		{"no transitions", anbnSpec[:strings.Index(anbnSpec, "transitions")] + "transitions: []\n", `g.yaml:6: transitions must be a non-empty list`},
		{"row is a mapping", edit("[q1, a, a, q1, push]", "{from: q1}"), `g.yaml:8: transition must be a list [from, input, top, to, op], got a mapping`},
		{"four fields", edit("[q1, a, a, q1, push]", "[q1, a, a, q1]"), `g.yaml:8: transition has 4 fields, want 5: [from, input, top, to, op]`},
		{"nested field", edit("[q1, a, a, q1, push]", "[q1, a, [a], q1, push]"), `g.yaml:8: each field of a transition must be a single value, got a list`},
		{"unknown input", edit("[q2, b, a, q2, pop]", "[q2, x, a, q2, pop]"), `g.yaml:10: unknown symbol "x" in transition (alphabet is {a,b})`},
		{"unknown top", edit("[q2, b, a, q2, pop]", "[q2, b, x, q2, pop]"), `g.yaml:10: unknown top "x" in transition (want a symbol of {a,b}, empty or any)`},
		{"unknown op", edit("[q1, a, a, q1, push]", "[q1, a, a, q1, psh]"), `g.yaml:8: unknown op "psh" (want push, pop or noop)`},
		{"op on its own line", edit("[q1, a, a, q1, push]", "\n    - q1\n    - a\n    - a\n    - q1\n    - psh"), `g.yaml:13: unknown op "psh"`},
		{"pop on empty", edit("[q0, a, empty, q1, push]", "[q0, a, empty, q1, pop]"), `g.yaml:7: transition from "q0" on "a" pops an empty stack`},
		{"overlap", anbnSpec + "  - [q1, b, any, q2, pop]\n", `g.yaml:11: transition from "q1" on "b" with top any overlaps the one on line 9 (the PDA must be deterministic)`},
		{"overlap through any", edit("[q1, a, a, q1, push]", "[q1, b, any, q1, noop]"), `g.yaml:9: transition from "q1" on "b" with top "a" overlaps the one on line 8 (the PDA must be deterministic)`},
		{"given twice", anbnSpec + "  - [q1, b, a, q1, noop]\n", `g.yaml:11: transition from "q1" on "b" with top "a" is given twice (first on line 9)`},
		{"unused accept state", edit("[q2]", "[q2, q9]"), `g.yaml:4: accept state "q9" is neither the start state nor used by any transition`},
		{"unknown start state", edit("start: q0", "start: q9"), `g.yaml:3: start state "q9" has no transition from it`},
		{"start state only a target", edit("start: q0", "start: q3") + "  - [q2, a, a, q3, noop]\n", `g.yaml:3: start state "q3" has no transition from it`},
		{"accept twice", edit("[q2]", "[q2, q2]"), `g.yaml:4: accept state "q2" is listed twice`},
		{"accept not a list", edit("[q2]", "q2"), `g.yaml:4: accept must be a list of states such as [q2], got "q2"`},
		{"accept_with_top not a mapping", withTops("[q1]"), `g.yaml:6: accept_with_top must be a mapping from states to lists of tops, such as {q1: [a, empty]}, got a list`},
		{"accept_with_top empty", withTops(""), `g.yaml:6: accept_with_top must be a mapping from states to lists of tops, such as {q1: [a, empty]}, got nothing`},
		{"accept_with_top state a list", withTops("\n  [q1]: [a]"), `g.yaml:7: each state of accept_with_top must be a single value, got a list`},
		{"accept_with_top state twice", withTops("\n  q1: [a]\n  q1: [b]"), `g.yaml:8: state "q1" is given twice in accept_with_top (first on line 7)`},
		{"accept_with_top tops not a list", withTops("\n  q1: a"), `g.yaml:7: the tops of "q1" in accept_with_top must be a non-empty list of tops such as [a, empty], got "a"`},
		{"accept_with_top no tops", withTops("\n  q1: []"), `g.yaml:7: the tops of "q1" in accept_with_top must be a non-empty list of tops such as [a, empty], got an empty list`},
		{"accept_with_top nested top", withTops("\n  q1: [[a]]"), `g.yaml:7: each entry of the tops of "q1" in accept_with_top must be a single value, got a list`},
		{"accept_with_top unknown state", withTops("\n  q9: [a]"), `g.yaml:7: state "q9" in accept_with_top is neither the start state nor used by any transition`},
		{"accept_with_top unknown top", withTops("\n  q1: [a,\n    x]"), `g.yaml:8: unknown top "x" for state "q1" in accept_with_top (want a symbol of {a,b}, empty or any)`},
		{"accept_with_top top twice", withTops("\n  q1: [a, b, a]"), `g.yaml:7: accept_with_top: top "a" is listed twice for state "q1"`},
		{"accept_with_top any and more", withTops("\n  q1: [b, any]"), `g.yaml:7: accept_with_top: top any of state "q1" overlaps top "b" (any covers every top)`},
		{"accept_with_top repeats empty", withTops("\n  q2: [a, empty]"), `g.yaml:7: accept_with_top: state "q2" accepts on the empty stack already (it is in accept and accept_empty_stack is true); top empty repeats it`},
		{"accept_with_top repeats accept", strings.Replace(withTops("\n  q2: [a]"), "accept_empty_stack: true", "accept_empty_stack: false", 1), `g.yaml:7: accept_with_top: state "q2" accepts with every top already (it is in accept and accept_empty_stack is false)`},
		{"accept_with_top twice", withTops("\n  q1: [a]\naccept_with_top: {q0: [a]}"), `g.yaml:8: field "accept_with_top" is given twice (first on line 6)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("g.yaml", []byte(tt.spec))
			if err == nil {
				t.Fatalf("Parse accepted:\n%s", tt.spec)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error\n  %s\nwant it to contain\n  %s", msg, tt.want)
			}
			checkSpecError(t, "g.yaml", err)
		})
	}
}

// checkSpecError checks that err is a one-line *SpecError for file.
func checkSpecError(t testing.TB, file string, err error) {
	t.Helper()
	var se *SpecError
	if !errors.As(err, &se) || se.File != file || se.Line < 0 {
		t.Errorf("error %q (%T) is not a *SpecError for %s", err, err, file)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, file+":") {
		t.Errorf("error %q is not one line starting %s:", msg, file)
	}
}

func TestParseDefaults(t *testing.T) {
	p, err := Parse("dir/my.grammar.yaml", []byte(edit("name: anbn\n", "")))
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "my.grammar" {
		t.Errorf("default name = %q, want %q", p.Name, "my.grammar")
	}
	p, err = Parse("g.yaml", []byte(edit("accept_empty_stack: true\n", "")))
	if err != nil {
		t.Fatal(err)
	}
	if p.EmptyStack || !p.Accepts("aabb") || !p.Accepts("aab") {
		t.Errorf("without accept_empty_stack: EmptyStack %v, aabb %v, aab %v", p.EmptyStack, p.Accepts("aabb"), p.Accepts("aab"))
	}
}

func TestParseStateOrder(t *testing.T) {
	spec := edit("start: q0", "start: q1")
	p, err := Parse("g.yaml", []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"q1", "q0", "q2"}; !slices.Equal(p.States, want) || p.Start != 0 {
		t.Errorf("states %v start %d, want %v start 0", p.States, p.Start, want)
	}
}

// TestSpecFilesMatchBuiltins parses testdata/NAME.yaml for each built-in
// language and checks that it is the built-in PDA and that it agrees with
// the built-in recognizer on every string up to length 8.
func TestSpecFilesMatchBuiltins(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l := mustBuiltin(t, name)
			p := parseFile(t, specPath(name))
			if p.Name != name {
				t.Errorf("name %q, want %q", p.Name, name)
			}
			if !samePDA(p, l.PDA) {
				t.Errorf("spec file PDA differs from the built-in one:\n%+v\n%+v", *p, *l.PDA)
			}
			eachString(p.Alphabet, 8, func(s string) {
				if got, want := p.Accepts(s), l.Recognize(s); got != want {
					t.Fatalf("%q: spec PDA says %v, recognizer %v", s, got, want)
				}
			})
		})
	}
}

func specPath(name string) string { return filepath.Join("testdata", name+".yaml") }

func parseFile(t testing.TB, path string) *PDA {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// samePDA compares two PDAs, ignoring the source lines of transitions.
func samePDA(p, q *PDA) bool {
	eqT := func(a, b Transition) bool { a.Line, b.Line = 0, 0; return a == b }
	return p.Name == q.Name && slices.Equal(p.Alphabet, q.Alphabet) && slices.Equal(p.States, q.States) &&
		p.Start == q.Start && slices.Equal(p.Accept, q.Accept) && p.EmptyStack == q.EmptyStack &&
		slices.EqualFunc(p.AcceptTops, q.AcceptTops, slices.Equal) &&
		slices.EqualFunc(p.Transitions, q.Transitions, eqT)
}

func TestLoad(t *testing.T) {
	l, err := Load("dyck2")
	if err != nil || l.Name != "dyck2" || !l.Recognize("([])") {
		t.Errorf(`Load("dyck2") = %v, %v`, l, err)
	}
	l, err = Load(specPath("anbn"))
	if err != nil {
		t.Fatal(err)
	}
	if l.Name != "anbn" || !l.Recognize("aabb") || l.Recognize("aab") || !strings.Contains(l.Description, "anbn.yaml") {
		t.Errorf("Load(anbn.yaml) = %+v", l)
	}
	if s, ok := l.Sample(rand.New(rand.NewPCG(1, 2)), 0); ok {
		t.Errorf("Sample(0) = %q, true; anbn has no empty member", s)
	}
	_, err = Load("nope")
	want := `unknown grammar "nope" (built-in: palindrome, anbn, anbncbmam, anmbncm, dyck2; or a path to a .yaml PDA file)`
	if err == nil || err.Error() != want {
		t.Errorf("Load(nope) error = %v, want %s", err, want)
	}
	if _, err = Load("testdata"); err == nil || !strings.HasPrefix(err.Error(), `cannot read grammar "testdata": `) {
		t.Errorf("Load(testdata) error = %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: [x]\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err = Load(bad); err == nil || !strings.HasPrefix(err.Error(), bad+":1: name must be a single value") {
		t.Errorf("Load(bad.yaml) error = %v", err)
	}
}

func TestNewErrorsWithoutFile(t *testing.T) {
	p := PDA{
		Alphabet: []rune("ab"), States: []string{"q0"}, Accept: []bool{true},
		Transitions: []Transition{{Input: 0, Top: TopAny}, {Input: 0, Top: 1}},
	}
	_, err := New(p)
	want := `transition from "q0" on "a" with top "b" overlaps the one with top any (the PDA must be deterministic)`
	if err == nil || err.Error() != want {
		t.Errorf("New error = %v, want %s", err, want)
	}
	p.Transitions[1].Line = 7
	if _, err = New(p); err == nil || !strings.HasPrefix(err.Error(), "line 7: transition") {
		t.Errorf("New error = %v, want it to start with line 7:", err)
	}
	p.Transitions = nil
	p.Alphabet = nil
	for r := range rune(3000) {
		p.Alphabet = append(p.Alphabet, 0x100+r)
	}
	if _, err = New(p); err == nil || !strings.Contains(err.Error(), "the PDA is too large") {
		t.Errorf("New with 3000 symbols: error %v, want too large", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range append(Names(), "topaccept") {
		data, err := os.ReadFile(specPath(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		withTops("\n  q1: [a, empty]\n  q0: [any]"), withTops("{q2: [a], q2: [b]}"),
		"", "---\n", "a: *x\n", "&a [*a]\n", anbnSpec + "  - [q1, b, any, q2, pop]\n",
		edit("[q2]", "[q9]"), edit("[a, b]", "[a, é]"), anbnSpec[:40],
		"alphabet: [a]\nstart: s\naccept: [s]\ntransitions: [[s, a, any, s, pop]]\n",
		chainSpec(3000), "alphabet: [a]\nstart: s\naccept: [s]\ntransitions: [[s, \xff, any, s, pop]]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("f.yaml", data)
		if err != nil {
			checkSpecError(t, "f.yaml", err)
			return
		}
		if p.M() == 0 || p.L() == 0 || len(p.Transitions) == 0 {
			t.Fatalf("Parse accepted an unusable PDA: %+v", *p)
		}
		sample, rng := NewSampler(p), rand.New(rand.NewPCG(1, 2))
		for n := range 6 {
			if s, ok := sample(rng, n); ok && (len([]rune(s)) != n || !p.Accepts(s)) {
				t.Fatalf("sampled %q for n=%d, not accepted", s, n)
			}
		}
	})
}

// TestLoadHugeSpecRefusedUnread: a spec file above limits.SpecBytes is
// refused before it is read or parsed (a 50 MB file used to take 2.4 GB and
// 17 s), and one with more rows than limits.Transitions before they are
// converted.
func TestLoadHugeSpecRefusedUnread(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(50 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got := testutil.Allocated(func() { _, err = Load(big) })
	if err == nil || !strings.Contains(err.Error(), "more than the limit") {
		t.Errorf("Load of a 50 MB spec: %v, want the size limit", err)
	}
	if got > 1<<20 {
		t.Errorf("Load allocated %d bytes to refuse a 50 MB spec", got)
	}
	var b strings.Builder
	b.WriteString("alphabet: [a]\nstart: q0\naccept: [q0]\ntransitions:\n")
	for range limits.Transitions + 1 {
		b.WriteString("- [q0, a, any, q0, push]\n")
	}
	if _, err := Parse("rows.yaml", []byte(b.String())); err == nil || !strings.Contains(err.Error(), "transitions = 65537 is more than the limit") {
		t.Errorf("Parse with too many rows: %v", err)
	}
}

// chainSpec is the spec of the hardening issue: a chain of n states.
func chainSpec(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "alphabet: [a, b]\nstart: q0\naccept: [q%d]\ntransitions:\n", n)
	for i := range n {
		fmt.Fprintf(&b, "  - [q%d, a, any, q%d, push]\n", i, i+1)
	}
	return b.String()
}
