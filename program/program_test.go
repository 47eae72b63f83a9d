package program

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/stack"
)

// randomPDA builds a random deterministic PDA over L symbols with M states.
// Its operations depend on the top as well as the input, so it exercises the
// second-order action gadgets that the benchmark languages do not need.
func randomPDA(rng *rand.Rand, M, L int) *grammar.PDA {
	p := grammar.PDA{Name: "random", Start: 0, EmptyStack: rng.IntN(2) == 0}
	for i := 0; i < L; i++ {
		p.Alphabet = append(p.Alphabet, rune('a'+i))
	}
	for q := 0; q < M; q++ {
		p.States = append(p.States, fmt.Sprintf("q%d", q))
		p.Accept = append(p.Accept, rng.IntN(2) == 0)
	}
	op := func(k int) grammar.Op {
		o := grammar.Op(rng.IntN(3))
		if o == grammar.Pop && k == grammar.TopEmpty {
			o = grammar.Push
		}
		return o
	}
	for q := 0; q < M; q++ {
		for l := 0; l < L; l++ {
			switch rng.IntN(4) {
			case 0: // no transition
			case 1:
				p.Transitions = append(p.Transitions, grammar.Transition{From: q, Input: l, Top: grammar.TopAny, To: rng.IntN(M), Op: op(grammar.TopAny)})
			default:
				for k := grammar.TopEmpty; k < L; k++ {
					if rng.IntN(5) == 0 {
						continue
					}
					p.Transitions = append(p.Transitions, grammar.Transition{From: q, Input: l, Top: k, To: rng.IntN(M), Op: op(k)})
				}
			}
		}
	}
	pda, err := grammar.New(p)
	if err != nil {
		panic(err)
	}
	return pda
}

// agree checks that the network classifies every string over the alphabet up
// to length maxLen exactly as the PDA does.
func agree(t *testing.T, p *grammar.PDA, run *nspda.Runner, maxLen int) {
	t.Helper()
	syms := make([]int, 0, maxLen)
	var walk func() bool
	walk = func() bool {
		if got, want := accept(run, syms), p.Run(syms); got != want {
			t.Errorf("%s: network says %v, PDA says %v on %q", p.Name, got, want, p.Decode(syms))
			return false
		}
		if len(syms) == maxLen {
			return true
		}
		for l := 0; l < p.L(); l++ {
			syms = append(syms, l)
			ok := walk()
			syms = syms[:len(syms)-1]
			if !ok {
				return false
			}
		}
		return true
	}
	walk()
}

func accept(run *nspda.Runner, syms []int) bool {
	ok, _ := run.Classify(syms)
	return ok
}

var orders = []nspda.Order{nspda.Second, nspda.Third}

func TestRandomPDAsExhaustive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 60; trial++ {
		p := randomPDA(rng, 1+rng.IntN(4), 1+rng.IntN(3))
		for _, order := range orders {
			for _, dead := range []bool{false, true} {
				prog, err := Compile(p, Options{Order: order, Dead: dead})
				if err != nil {
					t.Fatal(err)
				}
				maxLen := map[int]int{1: 12, 2: 9, 3: 7}[p.L()]
				agree(t, p, prog.Model().NewRunner(), maxLen)
				if t.Failed() {
					t.Fatalf("trial %d, order %d, dead %v:\n%s", trial, order, dead, prog)
				}
			}
		}
	}
}

// cornerReads are the read values at the corners of the paper's training
// intervals (top, popped, other): the extremes a programmed net must
// survive in training mode.
func cornerReads() []stack.Reads {
	var corners []stack.Reads
	for _, top := range stack.TopRange {
		for _, pop := range stack.PoppedRange {
			for _, oth := range stack.OtherRange {
				corners = append(corners, stack.Reads{Top: top, Popped: pop, Other: oth})
			}
		}
	}
	return corners
}

// TestRandomPDAsTrainingReads checks programmed actions under the extreme
// read values of the paper's training intervals, on long random strings that
// follow the PDA's defined transitions (so that the stack gets deep).
func TestRandomPDAsTrainingReads(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	corners := cornerReads()
	for trial := 0; trial < 40; trial++ {
		p := randomPDA(rng, 2+rng.IntN(3), 2+rng.IntN(3))
		for _, order := range orders {
			run := mustCompile(t, p, Options{Order: order}).Model().NewRunner()
			for _, reads := range corners {
				run.Reads = reads
				for s := 0; s < 20; s++ {
					syms := liveString(rng, p, 200)
					if got, want := accept(run, syms), p.Run(syms); got != want {
						t.Fatalf("order %d, reads %+v: network %v, PDA %v on %q", order, reads, got, want, p.Decode(syms))
					}
				}
			}
		}
	}
}

// liveString draws up to n symbols, each one with a defined transition from
// the current configuration where there is one.
func liveString(rng *rand.Rand, p *grammar.PDA, n int) []int {
	c := grammar.Config{State: p.Start}
	var out []int
	for len(out) < n {
		var live []int
		for l := 0; l < p.L(); l++ {
			probe := grammar.Config{State: c.State, Stack: c.Stack}
			if _, ok := p.Step(&probe, l); ok {
				live = append(live, l)
			}
		}
		if len(live) == 0 {
			break
		}
		l := live[rng.IntN(len(live))]
		c.Stack = append([]int(nil), c.Stack...)
		p.Step(&c, l)
		out = append(out, l)
	}
	return out
}

func mustCompile(t testing.TB, p *grammar.PDA, opt Options) *Program {
	t.Helper()
	prog, err := Compile(p, opt)
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// TestStateStrengthIrrelevant: with hard-threshold states, any H > 0 gives the
// same classifications.
func TestStateStrengthIrrelevant(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 10; trial++ {
		p := randomPDA(rng, 3, 2)
		for _, order := range orders {
			for _, h := range []float64{0.01, 1, 100} {
				agree(t, p, mustCompile(t, p, Options{Order: order, H: h}).Model().NewRunner(), 8)
			}
		}
	}
}

func TestFeasibleHA(t *testing.T) {
	lo, hi := FeasibleHA(4)
	if !(lo < 1 && 1 < hi) {
		t.Fatalf("default HA = 1 outside (%g, %g)", lo, hi)
	}
	p := randomPDA(rand.New(rand.NewPCG(7, 8)), 2, 2)
	lo, hi = FeasibleHA(p.L())
	for _, ha := range []float64{lo, hi, 0.1, 5} {
		if _, err := Compile(p, Options{HA: ha}); err == nil {
			t.Errorf("HA = %g accepted, want an error", ha)
		}
	}
}

// TestHAOutsideIntervalFails shows the interval is not vacuous: third-order
// action weights scaled below it lose pushes and pops, and scaled far above it
// turn read noise into spurious actions, under the worst training reads.
func TestHAOutsideIntervalFails(t *testing.T) {
	worst := stack.Reads{Top: stack.TopRange[0], Popped: stack.PoppedRange[1], Other: stack.OtherRange[1]}
	for _, scale := range []float64{0.2, 3} {
		rng := rand.New(rand.NewPCG(9, 10))
		wrong := 0
		for trial := 0; trial < 30; trial++ {
			p := randomPDA(rng, 2+rng.IntN(2), 3)
			prog := mustCompile(t, p, Options{})
			for i := range prog.Sets {
				if prog.Sets[i].Tensor == nspda.TWa {
					prog.Sets[i].Value *= scale
				}
			}
			run := prog.Model().NewRunner()
			run.Reads = worst
			for s := 0; s < 20; s++ {
				syms := liveString(rng, p, 60)
				if accept(run, syms) != p.Run(syms) {
					wrong++
				}
			}
		}
		if wrong == 0 {
			t.Errorf("action weights scaled by %g still classify everything right; the interval is not tight", scale)
		}
		t.Logf("action weights scaled by %g: %d of 600 strings misclassified", scale, wrong)
	}
}

// A chain of 3000 states is a valid PDA whose network would need more
// parameters than an NSPDA may have: Compile refuses it (Model used to
// panic on it).
func TestCompileTooLarge(t *testing.T) {
	const n = 3000
	pda := grammar.PDA{Name: "chain", Alphabet: []rune("ab"), States: make([]string, n+1), Accept: make([]bool, n+1)}
	for i := range pda.States {
		pda.States[i] = fmt.Sprintf("q%d", i)
	}
	pda.Accept[n] = true
	for i := range n {
		pda.Transitions = append(pda.Transitions, grammar.Transition{From: i, Input: 0, Top: grammar.TopAny, To: i + 1, Op: grammar.Push})
	}
	p, err := grammar.New(pda)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Compile(p, Options{Order: nspda.Third})
	if err == nil || !strings.Contains(err.Error(), "more than the limit") {
		t.Errorf("Compile = %v, want a size error", err)
	}
}
