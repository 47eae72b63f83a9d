package grammar

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nspda/nspda/grammar/grammartest"
)

// refAccepts runs p on s from the definitions alone: the transition that
// applies is searched in p.Transitions (not the table New builds), and the
// verdict at the end follows the rule of the PDA type's comment, from
// Accept, EmptyStack and AcceptTops. It is the brute-force reference the
// recognizer, the sampler and the oracle are checked against.
func refAccepts(p *PDA, s string) bool {
	q := p.Start
	var stack []int
	for _, r := range s {
		l := slices.Index(p.Alphabet, r)
		if l < 0 {
			return false
		}
		found := false
		for _, t := range p.Transitions {
			if t.From != q || t.Input != l {
				continue
			}
			n := len(stack)
			if !(t.Top == TopAny || t.Top == TopEmpty && n == 0 || n > 0 && t.Top == stack[n-1]) {
				continue
			}
			found = true
			q = t.To
			switch t.Op {
			case Push:
				stack = append(stack, l)
			case Pop:
				if n > 0 {
					stack = stack[:n-1]
				}
			}
			break
		}
		if !found {
			return false
		}
	}
	n := len(stack)
	if p.Accept[q] && (!p.EmptyStack || n == 0) {
		return true
	}
	if q < len(p.AcceptTops) {
		for _, k := range p.AcceptTops[q] {
			if k == TopAny || k == TopEmpty && n == 0 || n > 0 && k == stack[n-1] {
				return true
			}
		}
	}
	return false
}

// randomTopPDA builds a random deterministic PDA over L symbols with M
// states whose acceptance depends on the top: besides a random Accept and
// EmptyStack, each state lists random further tops (any among them now and
// then), none already covered.
func randomTopPDA(rng *rand.Rand, M, L int) *PDA {
	p := PDA{Name: "randomtop", EmptyStack: rng.IntN(2) == 0}
	for i := range L {
		p.Alphabet = append(p.Alphabet, rune('a'+i))
	}
	for q := range M {
		p.States = append(p.States, fmt.Sprintf("q%d", q))
		p.Accept = append(p.Accept, rng.IntN(3) == 0)
	}
	p.AcceptTops = make([][]int, M)
	for q := range M {
		if p.Accept[q] && !p.EmptyStack {
			continue // accepts with every top already
		}
		if rng.IntN(6) == 0 && !p.Accept[q] {
			p.AcceptTops[q] = []int{TopAny}
			continue
		}
		for k := TopEmpty; k < L; k++ {
			if k == TopEmpty && p.Accept[q] {
				continue
			}
			if rng.IntN(2) == 0 {
				p.AcceptTops[q] = append(p.AcceptTops[q], k)
			}
		}
	}
	for q := range M {
		for l := range L {
			switch rng.IntN(4) {
			case 0:
			case 1:
				op := Op(rng.IntN(3))
				p.Transitions = append(p.Transitions, Transition{From: q, Input: l, Top: TopAny, To: rng.IntN(M), Op: op})
			default:
				for k := TopEmpty; k < L; k++ {
					if rng.IntN(5) == 0 {
						continue
					}
					op := Op(rng.IntN(3))
					if op == Pop && k == TopEmpty {
						op = Push
					}
					p.Transitions = append(p.Transitions, Transition{From: q, Input: l, Top: k, To: rng.IntN(M), Op: op})
				}
			}
		}
	}
	pda, err := New(p)
	if err != nil {
		panic(err)
	}
	return pda
}

// TestTopAcceptFile: the PDA of testdata/topaccept.yaml accepts with a on
// top and on the empty stack but not with b on top, in the same state, and
// agrees with the language's definition and with the reference run on every
// string up to length 10.
func TestTopAcceptFile(t *testing.T) {
	p := parseFile(t, specPath("topaccept"))
	q1 := 1
	if p.States[q1] != "q1" || !p.AcceptsAt(q1, 0) || p.AcceptsAt(q1, 1) || p.AcceptsAt(q1, 2) || !p.AcceptsAt(q1, p.L()) {
		t.Fatalf("q1's acceptance by top (a, b, c, empty): %v %v %v %v",
			p.AcceptsAt(q1, 0), p.AcceptsAt(q1, 1), p.AcceptsAt(q1, 2), p.AcceptsAt(q1, p.L()))
	}
	members := 0
	eachString(p.Alphabet, exhaustiveLen, func(s string) {
		want := grammartest.TopAccept(s)
		if got := p.Accepts(s); got != want {
			t.Fatalf("%q: PDA %v, definition %v", s, got, want)
		}
		if got := refAccepts(p, s); got != want {
			t.Fatalf("%q: reference run %v, definition %v", s, got, want)
		}
		if want {
			members++
		}
	})
	if members == 0 {
		t.Fatal("no members")
	}
	for _, s := range []string{"a", "ac", "abc", "bc", "ba", "abcc"} {
		if !p.Accepts(s) {
			t.Errorf("%q rejected", s)
		}
	}
	for _, s := range []string{"", "b", "ab", "c", "abb", "bcc"} {
		if p.Accepts(s) {
			t.Errorf("%q accepted", s)
		}
	}
}

// TestRecognizerMatchesReference: on random PDAs with top-dependent
// acceptance, PDA.Accepts (through the transition table and AcceptsAt)
// agrees with the reference run on every string up to a length.
func TestRecognizerMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := range 80 {
		p := randomTopPDA(rng, 1+rng.IntN(4), 1+rng.IntN(3))
		maxLen := map[int]int{1: 12, 2: 9, 3: 7}[p.L()]
		eachString(p.Alphabet, maxLen, func(s string) {
			if got, want := p.Accepts(s), refAccepts(p, s); got != want {
				t.Fatalf("trial %d: %q: Accepts %v, reference %v\n%s", trial, s, got, want, p.MarshalSpec())
			}
		})
	}
}

// TestSamplerTopAcceptance: on random PDAs with top-dependent acceptance,
// every sampled string is accepted and has the length asked for, and the
// sampler finds none where none exists (its abstraction over-approximates).
func TestSamplerTopAcceptance(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	found := 0
	for trial := range 60 {
		p := randomTopPDA(rng, 1+rng.IntN(4), 1+rng.IntN(3))
		maxLen := map[int]int{1: 12, 2: 9, 3: 7}[p.L()]
		exists := make([]bool, maxLen+1)
		eachString(p.Alphabet, maxLen, func(s string) { exists[len([]rune(s))] = exists[len([]rune(s))] || refAccepts(p, s) })
		sample := NewSampler(p)
		for n, want := range exists {
			s, ok := sample(rng, n)
			if ok && (len([]rune(s)) != n || !refAccepts(p, s)) {
				t.Fatalf("trial %d: sample(%d) = %q, not a member of that length\n%s", trial, n, s, p.MarshalSpec())
			}
			if ok && !want {
				t.Fatalf("trial %d: sample(%d) = %q where no member exists", trial, n, s)
			}
			if ok {
				found++
			}
		}
	}
	if found == 0 {
		t.Fatal("the sampler found no string at all")
	}
}

// TestOracleTopAcceptance: viability, next-symbol sets and operations on
// top-dependent acceptance, against the bounded search (which reads
// acceptance through PDA.Accepting), on the testdata PDA and random ones.
func TestOracleTopAcceptance(t *testing.T) {
	p := parseFile(t, specPath("topaccept"))
	checkOracle(t, p, grammartest.TopAccept, 6)
	rng := rand.New(rand.NewPCG(25, 26))
	for range 25 {
		p := randomTopPDA(rng, 1+rng.IntN(3), 1+rng.IntN(2))
		checkOracle(t, p, func(s string) bool { return refAccepts(p, s) }, 5)
	}
}

// TestNewAcceptTopsErrors: AcceptTops given to New is checked as a spec's
// accept_with_top is, without a file or line.
func TestNewAcceptTopsErrors(t *testing.T) {
	base := func(emptyStack bool, accept bool, tops ...int) PDA {
		return PDA{
			Alphabet: []rune("ab"), States: []string{"q0", "q1"}, Accept: []bool{false, accept},
			EmptyStack: emptyStack, AcceptTops: [][]int{nil, tops},
			Transitions: []Transition{{From: 0, Input: 0, Top: TopAny, To: 1, Op: Push}},
		}
	}
	tests := []struct {
		p    PDA
		want string
	}{
		{base(false, false, 0, 0), `top "a" is listed twice for state "q1"`},
		{base(false, false, 0, TopAny), `top any of state "q1" overlaps top "a" (any covers every top)`},
		{base(false, false, TopAny, TopEmpty), `top empty of state "q1" overlaps top any`},
		{base(false, false, 5), `accept top 5 of state "q1" is out of range`},
		{base(false, true, 0), `state "q1" accepts with every top already (it is in accept and accept_empty_stack is false)`},
		{base(true, true, TopEmpty), `state "q1" accepts on the empty stack already`},
		{base(true, true, TopAny), `state "q1" accepts on the empty stack already`},
	}
	for _, tt := range tests {
		if _, err := New(tt.p); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("New(%v) error %v, want %s", tt.p.AcceptTops, err, tt.want)
		}
	}
	p := base(false, false)
	p.AcceptTops = [][]int{nil, nil, {0}}
	if _, err := New(p); err == nil || !strings.Contains(err.Error(), "accept tops are given for 3 states, there are 2") {
		t.Errorf("New with 3 AcceptTops for 2 states: %v", err)
	}
	// Shorter than States is fine, and New does not modify the caller's slice.
	p = base(true, true, 1)
	p.AcceptTops = p.AcceptTops[:1]
	q, err := New(p)
	if err != nil || len(q.AcceptTops) != 2 || len(p.AcceptTops) != 1 || !q.AcceptsAt(1, 2) || q.AcceptsAt(1, 1) {
		t.Errorf("New with 1 AcceptTops entry for 2 states: %v, %v", q, err)
	}
	// With accept_empty_stack, an accepting state may also accept with a symbol on top.
	q, err = New(base(true, true, 1))
	if err != nil || !q.AcceptsAt(1, 2) || !q.AcceptsAt(1, 1) || q.AcceptsAt(1, 0) {
		t.Errorf("q1 in accept with top b: %v", err)
	}
}
