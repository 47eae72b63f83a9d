package extract

import (
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/nn/nntest"
)

// TestWitnesses: on random networks, every (state, top) pair the
// saturation reaches is reached by its witness string when the network runs
// it, so exploration never evaluates a configuration the network cannot be
// in.
func TestWitnesses(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		order := nspda.Third
		if seed%2 == 0 {
			order = nspda.Second
		}
		m, err := nspda.New(nspda.Shape{Order: order, L: 2, J: 4, A: 2}, []rune("ab"))
		if err != nil {
			t.Fatal(err)
		}
		nntest.FillNormal(m.Params, seed, 7)
		e := newExplorer(m, 1, 1000)
		e.witnesses = true
		e.explore()
		run := m.NewRunner()
		for q := range e.states {
			for k := 0; k <= e.L; k++ {
				if !e.reached(q, k) {
					continue
				}
				w := e.witness[[2]int{q, k}]
				if len(w) > 0 && w[0] < 0 {
					continue // longer than maxWitness
				}
				run.Reset()
				for _, l := range w {
					run.Step(l)
				}
				top := run.Stack.Top()
				if top < 0 {
					top = e.L
				}
				s := e.states[q]
				if !slices.Equal(run.Active(), s.Active) || run.Stack.Popped() != s.Popped || top != k {
					t.Fatalf("seed %d: witness %v of (%v, top %d) ends in (%v popped %d, top %d)",
						seed, w, s, k, run.Active(), run.Stack.Popped(), top)
				}
			}
		}
	}
}

// wideNet is a random network over L symbols whose state vector takes
// more values than any small bound.
func wideNet(t testing.TB, L int) *nspda.Model {
	t.Helper()
	alphabet := make([]rune, L)
	for i := range alphabet {
		alphabet[i] = rune(0x100 + i)
	}
	m, err := nspda.New(nspda.Shape{Order: nspda.Second, L: L, J: 16, A: 2}, alphabet)
	if err != nil {
		t.Fatal(err)
	}
	nntest.FillNormal(m.Params, 3, 8)
	return m
}

// TestExploreMemoryProportional: exploration's memory is proportional to
// what it reaches (a reached (state, top) pair costs its L transitions),
// not L·(L+1) transitions for every state met: over 128 symbols, 500
// states cost 66 MB that way, and 2000 states over 256
// symbols 1 GB.
func TestExploreMemoryProportional(t *testing.T) {
	const L = 128
	m := wideNet(t, L)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := Extract(m, Options{MaxStates: 500})
	runtime.ReadMemStats(&after)
	got := after.TotalAlloc - before.TotalAlloc
	budget := uint64(1<<16 + 1024*r.Explored + 64*L*r.Pairs)
	t.Logf("%d states, %d pairs: %d bytes (budget %d)", r.Explored, r.Pairs, got, budget)
	if r.Explored != 500 || !errors.Is(r.Err, ErrTooManyStates) {
		t.Fatalf("explored %d, %v: want the bound of 500 states met", r.Explored, r.Err)
	}
	if got > budget {
		t.Errorf("exploring %d states (%d pairs) over %d symbols allocated %d bytes, budget %d", r.Explored, r.Pairs, L, got, budget)
	}
}

// TestMaxMoves: exploration stops, with no PDA and a message naming the
// bound, when the reached pairs need more transitions than MaxMoves.
func TestMaxMoves(t *testing.T) {
	r := Extract(wideNet(t, 8), Options{MaxStates: 1 << 20, MaxMoves: 800})
	if r.PDA != nil || !errors.Is(r.Err, ErrTooManyStates) || !strings.Contains(r.Message, "more than 800 transitions") || r.Pairs > 100 {
		t.Errorf("PDA %v, %d pairs, error %v, message %q", r.PDA, r.Pairs, r.Err, r.Message)
	}
}
