package program

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nspda/nspda/grammar"
)

// withTopAcceptance returns p with random accept_with_top tops added: each
// state not already accepting with every top gets a random set of further
// tops (now and then any), so that a state's verdict depends on the top.
func withTopAcceptance(rng *rand.Rand, p *grammar.PDA) *grammar.PDA {
	q := *p
	q.AcceptTops = make([][]int, p.M())
	for s := range p.M() {
		switch {
		case p.Accept[s] && !p.EmptyStack:
			continue // accepts with every top already
		case !p.Accept[s] && rng.IntN(6) == 0:
			q.AcceptTops[s] = []int{grammar.TopAny}
			continue
		}
		for k := grammar.TopEmpty; k < p.L(); k++ {
			if (k != grammar.TopEmpty || !p.Accept[s]) && rng.IntN(2) == 0 {
				q.AcceptTops[s] = append(q.AcceptTops[s], k)
			}
		}
	}
	out, err := grammar.New(q)
	if err != nil {
		panic(err)
	}
	return out
}

// TestRandomTopAcceptanceExhaustive: PDAs whose acceptance depends on the
// top, programmed at both orders with and without the dead neuron, agree
// with the PDA on every string up to a length.
func TestRandomTopAcceptanceExhaustive(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for trial := range 40 {
		p := withTopAcceptance(rng, randomPDA(rng, 1+rng.IntN(4), 1+rng.IntN(3)))
		for _, order := range orders {
			for _, dead := range []bool{false, true} {
				prog := mustCompile(t, p, Options{Order: order, Dead: dead})
				maxLen := map[int]int{1: 12, 2: 9, 3: 7}[p.L()]
				agree(t, p, prog.Model().NewRunner(), maxLen)
				if t.Failed() {
					t.Fatalf("trial %d, order %d, dead %v:\n%s\n%s", trial, order, dead, p.MarshalSpec(), prog)
				}
			}
		}
	}
}

// TestTopAcceptanceTrainingReads: the accept neuron of a top-dependent PDA
// fires on the right tops under the corner read values of the training
// intervals too, on long strings that follow the PDA's transitions.
func TestTopAcceptanceTrainingReads(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	corners := cornerReads()
	for range 20 {
		p := withTopAcceptance(rng, randomPDA(rng, 2+rng.IntN(3), 2+rng.IntN(3)))
		for _, order := range orders {
			run := mustCompile(t, p, Options{Order: order}).Model().NewRunner()
			for _, reads := range corners {
				run.Reads = reads
				for range 10 {
					syms := liveString(rng, p, 100)
					if got, want := accept(run, syms), p.Run(syms); got != want {
						t.Fatalf("order %d, reads %+v: network %v, PDA %v on %q\n%s", order, reads, got, want, p.Decode(syms), p.MarshalSpec())
					}
				}
			}
		}
	}
}

// TestTestdataPDAs programs every PDA in grammar/testdata that is not a
// built-in language (those are TestLanguagesExhaustive's), at both orders
// with and without the dead neuron, and checks agreement with the PDA on
// every string up to length 10 (9 for four symbols or more).
func TestTestdataPDAs(t *testing.T) {
	files, err := filepath.Glob("../grammar/testdata/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no PDAs in grammar/testdata: %v", err)
	}
	tested := 0
	for _, f := range files {
		if _, ok := grammar.Builtin(trimExt(filepath.Base(f))); ok {
			continue
		}
		lang, err := grammar.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		tested++
		maxLen := exhaustiveLen(lang.PDA)
		for _, order := range orders {
			for _, dead := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/order%d/dead=%v", filepath.Base(f), order, dead), func(t *testing.T) {
					agree(t, lang.PDA, mustCompile(t, lang.PDA, Options{Order: order, Dead: dead}).Model().NewRunner(), maxLen)
				})
			}
		}
	}
	if tested == 0 {
		t.Fatal("grammar/testdata has only the built-in languages")
	}
}

func trimExt(name string) string { return name[:len(name)-len(filepath.Ext(name))] }

// TestTopAcceptanceRules: the accept neuron is entered from q on $ exactly
// with the tops q accepts with, at both orders (here topaccept's q1: a and
// the empty stack, not b or c).
func TestTopAcceptanceRules(t *testing.T) {
	l, err := grammar.Load("../grammar/testdata/topaccept.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := l.PDA
	if got := acceptTops(p, 1); !slices.Equal(got, []int{0, p.L()}) {
		t.Errorf("q1 accepts with tops %v, want [0 %d]", got, p.L())
	}
	if got := acceptTops(p, 0); len(got) != 0 {
		t.Errorf("q0 accepts with tops %v, want none", got)
	}
}
