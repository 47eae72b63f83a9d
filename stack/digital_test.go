package stack

import (
	"testing"

	"github.com/nspda/nspda/grammar"
)

func TestDigital(t *testing.T) {
	var d Digital
	d.Reset()
	r := make([]float64, 3) // symbols 0, 1 and ⊥
	v := Reads{Top: 0.9, Popped: 0.05, Other: 0.001}
	steps := []struct {
		op        grammar.Op
		sym       int
		wantLen   int
		wantRead  []float64
		wantEmpty int
	}{
		{grammar.Noop, 0, 0, []float64{0.001, 0.001, 0.9}, 0},
		{grammar.Pop, 0, 0, []float64{0.001, 0.001, 0.9}, 1}, // pop on empty: counted, no-op
		{grammar.Push, 0, 1, []float64{0.9, 0.001, 0.001}, 1},
		{grammar.Push, 1, 2, []float64{0.001, 0.9, 0.001}, 1},
		{grammar.Pop, 0, 1, []float64{0.9, 0.05, 0.001}, 1}, // 1 just popped
		{grammar.Noop, 0, 1, []float64{0.9, 0.001, 0.001}, 1},
		{grammar.Push, 0, 2, []float64{0.9, 0.001, 0.001}, 1},
		{grammar.Pop, 0, 1, []float64{0.9, 0.001, 0.001}, 1}, // popped 0, 0 on top: top wins
		{grammar.Pop, 0, 0, []float64{0.05, 0.001, 0.9}, 1},
	}
	for i, s := range steps {
		d.Apply(s.op, s.sym)
		d.Read(r, v)
		if d.Len() != s.wantLen || d.EmptyPops != s.wantEmpty {
			t.Fatalf("step %d: len %d, empty pops %d; want %d, %d", i, d.Len(), d.EmptyPops, s.wantLen, s.wantEmpty)
		}
		for k := range r {
			if r[k] != s.wantRead[k] {
				t.Fatalf("step %d: read %v, want %v", i, r, s.wantRead)
			}
		}
	}
}

func TestEvalReadsAreMidpoints(t *testing.T) {
	for _, c := range []struct {
		v  float64
		lo [2]float64
	}{{EvalReads.Top, TopRange}, {EvalReads.Popped, PoppedRange}, {EvalReads.Other, OtherRange}} {
		if c.v <= c.lo[0] || c.v >= c.lo[1] {
			t.Errorf("eval read %v outside %v", c.v, c.lo)
		}
	}
}
