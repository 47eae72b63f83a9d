package extract

import (
	"slices"
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
		e.explore()
		run := m.NewRunner()
		for q := range e.states {
			for k := 0; k <= e.L; k++ {
				if !e.reach[q][k] {
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
