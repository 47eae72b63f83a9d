package nnpda

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nspda/nspda/train"
	"github.com/nspda/nspda/train/traintest"
)

// The training driver perturbs a net's tensors only if it lists them, and
// experiment.Train lists them only for HigherOrder specs.
var _ train.Tensored = (*Model)(nil)

// TestNoiseMatrices checks, for both orders, that the matrices partition Ws
// and Wa exactly, Ws as J·J matrices (to-neuron i, from-neuron j) and Wa as
// J (from-neuron j), and that setting one matrix sets exactly its (i, j)
// slice of every input's block (the weights Step reads) and nothing else:
// no bias, no readout.
func TestNoiseMatrices(t *testing.T) {
	if !Specs[0].HigherOrder {
		t.Fatal("nnpda is not HigherOrder: its tensors would not be perturbed")
	}
	for _, order := range []int{2, 3} {
		m := small(t, order, 4, 1)
		J, C, X := m.cfg.Hidden, m.c, m.x()
		per := C * X // entries of a matrix: R×X, or V = C
		if order == 2 {
			per = C
		}
		tensors := m.NoiseMatrices()
		if len(tensors) != 2 || len(tensors[0]) != J*J || len(tensors[1]) != J {
			t.Fatalf("order %d: want 2 tensors of %d and %d matrices", order, J*J, J)
		}
		p := m.Params()
		seen := make([]int, len(p))
		wa := len(m.Ws) + len(m.Bs) // Wa's offset in Params
		for ti, mats := range tensors {
			lo, hi := 0, len(m.Ws)
			if ti == 1 {
				lo, hi = wa, wa+len(m.Wa)
			}
			for n, mat := range mats {
				if len(mat) != per {
					t.Errorf("order %d tensor %d matrix %d: %d entries, want %d", order, ti, n, len(mat), per)
				}
				clear(p)
				for _, idx := range mat {
					if idx < lo || idx >= hi {
						t.Fatalf("order %d tensor %d matrix %d lists %d, outside [%d,%d)", order, ti, n, idx, lo, hi)
					}
					seen[idx]++
					p[idx] = 1
				}
				if bad := slices.ContainsFunc([][]float64{m.Bs, m.Ba, m.Wo, m.Bo}, func(v []float64) bool {
					return slices.ContainsFunc(v, func(x float64) bool { return x != 0 })
				}); bad {
					t.Errorf("order %d tensor %d matrix %d sets a bias or the readout", order, ti, n)
				}
				checkSlice(t, m, ti, n, order)
			}
		}
		for idx, c := range seen {
			inTensor := idx < len(m.Ws) || idx >= wa && idx < wa+len(m.Wa)
			if want := b2i(inTensor); c != want {
				t.Errorf("order %d: parameter %d listed %d times, want %d", order, idx, c, want)
			}
		}
	}
}

// checkSlice checks that Params, holding 1 in matrix n of tensor ti and 0
// elsewhere, has its ones exactly in that matrix's (i, j) slice as Step reads
// it: row i, columns j·C..j·C+C−1 of ws (J × J·C) or entries j·C..j·C+C−1
// of wa (J·C), for every input l.
func checkSlice(t *testing.T, m *Model, ti, n, order int) {
	t.Helper()
	J, C := m.cfg.Hidden, m.c
	i, j := n/J, n%J
	if ti == 1 {
		i, j = -1, n
	}
	for l := range m.x() {
		ws, wa := m.block(m.Weights, l)
		for a := range J {
			for b := range J {
				for k := range C {
					if want := float64(b2i(a == i && b == j)); ws[a*J*C+b*C+k] != want {
						t.Fatalf("order %d Ws matrix %d: input %d Ws[%d,%d,%d] = %v, want %v", order, n, l, a, b, k, ws[a*J*C+b*C+k], want)
					}
				}
			}
		}
		for b := range J {
			for k := range C {
				if want := float64(b2i(i < 0 && b == j)); wa[b*C+k] != want {
					t.Fatalf("order %d tensor %d matrix %d: input %d Wa[%d,%d] = %v, want %v", order, ti, n, l, b, k, wa[b*C+k], want)
				}
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestNoiseTrains checks end to end, for both orders, that the noise
// regularizer now changes an NNPDA's training, and that it is the listed
// tensors that do it: without them (the defect) noise 15 trains exactly as
// noise 0.
func TestNoiseTrains(t *testing.T) {
	for _, order := range []int{2, 3} {
		run := func(percent float64, tensors bool) []float64 {
			m := small(t, order, 8, 1)
			return noiseRun(t, m, percent, tensors)
		}
		clean := run(0, true)
		if got := run(15, false); !slices.Equal(got, clean) {
			t.Fatalf("order %d: noise without tensors changed training", order)
		}
		if got := run(15, true); slices.Equal(got, clean) {
			t.Errorf("order %d: noise 15 trains exactly as noise 0", order)
		}
	}
}

// noiseRun trains m (traintest.NoiseRun) on two dozen strings over {a,b} of
// lengths 1..8, labelled by whether a precedes b throughout.
func noiseRun(t *testing.T, m *Model, percent float64, tensors bool) []float64 {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	var exs []train.Example
	for range 24 {
		syms := make([]int, 1+rng.IntN(8))
		for i := range syms {
			syms[i] = rng.IntN(2)
		}
		exs = append(exs, train.Example{Syms: syms, Label: float64(b2i(slices.IsSorted(syms)))})
	}
	return traintest.NoiseRun(t, m, exs, percent, tensors)
}
