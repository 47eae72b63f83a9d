package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/program"
)

// TestNoisePartitions: Algorithm 2 perturbs round(N_p% ) of each third's
// matrices (at least one), each matrix by one common factor, the factors
// following p, p/2, p/4, ... in order; untouched matrices stay exact.
func TestNoisePartitions(t *testing.T) {
	const K, size = 30, 4
	var mats [][]int
	params := make([]float64, K*size)
	for m := 0; m < K; m++ {
		var idx []int
		for e := 0; e < size; e++ {
			idx = append(idx, m*size+e)
			params[m*size+e] = float64(1 + e)
		}
		mats = append(mats, idx)
	}
	orig := append([]float64(nil), params...)
	Noise{Percent: 20, Scale: 0.5}.Apply(params, [][][]int{mats}, rand.New(rand.NewPCG(1, 1)), nil)
	var factors []float64
	perPart := [3]int{}
	for m := 0; m < K; m++ {
		f := params[m*size] / orig[m*size]
		for e := 1; e < size; e++ {
			if g := params[m*size+e] / orig[m*size+e]; math.Abs(g-f) > 1e-12 {
				t.Fatalf("matrix %d scaled unevenly: %v vs %v", m, f, g)
			}
		}
		if f != 1 {
			perPart[m/10]++
			factors = append(factors, f)
		}
	}
	if perPart != [3]int{2, 2, 2} {
		t.Fatalf("perturbed per third: %v, want 2 each (20%% of 10)", perPart)
	}
	// The factors are 1 + pβ·2^-n for n = 0..5 in partition order; the
	// deviations from 1 must halve along the perturbation order. Within a
	// third the order is random, so compare sorted magnitudes.
	dev := make([]float64, len(factors))
	for i, f := range factors {
		dev[i] = math.Abs(f - 1)
	}
	sum := 0.0
	for _, d := range dev {
		sum += d
	}
	// Σ |pβ| 2^-n for n < 6 = |pβ|·(2 − 2^-5)
	maxd := 0.0
	for _, d := range dev {
		maxd = math.Max(maxd, d)
	}
	if math.Abs(sum-maxd*(2-1.0/32)) > 1e-9 {
		t.Errorf("deviations %v do not halve from %v", dev, maxd)
	}
	Noise{}.Apply(params, [][][]int{mats}, rand.New(rand.NewPCG(1, 1)), nil) // 0%: no-op
}

// TestNoisePermIntoIsPerm: the regularizer's allocation-free choice of
// matrices is rng.Perm's, with the same random numbers (stored runs depend
// on it), and with a kept buffer Apply allocates nothing.
func TestNoisePermIntoIsPerm(t *testing.T) {
	a, b := rand.New(rand.NewPCG(7, 9)), rand.New(rand.NewPCG(7, 9))
	var buf []int
	for _, k := range []int{1, 2, 3, 10, 7, 33, 1, 64, 5} {
		want := a.Perm(k)
		buf = permInto(buf, k, b)
		if len(buf) != k {
			t.Fatalf("permInto(%d): length %d", k, len(buf))
		}
		for i := range want {
			if buf[i] != want[i] {
				t.Fatalf("permInto(%d) = %v, rng.Perm = %v", k, buf, want)
			}
		}
	}
	if a.Uint64() != b.Uint64() {
		t.Fatal("permInto consumed a different number of random values than rng.Perm")
	}
	mats := make([][]int, 30)
	for m := range mats {
		mats[m] = []int{m}
	}
	params := make([]float64, 30)
	for i := range params {
		params[i] = 1
	}
	perm := Noise{Percent: 20}.Apply(params, [][][]int{mats}, a, nil)
	if allocs := testing.AllocsPerRun(100, func() {
		perm = Noise{Percent: 20}.Apply(params, [][][]int{mats}, a, perm)
	}); allocs != 0 {
		t.Errorf("Apply with a kept buffer: %v allocations, want 0", allocs)
	}
}

func TestHints(t *testing.T) {
	lang, _ := grammar.Builtin("anbn")
	p := lang.PDA
	h1, err := HintProgram(p, nspda.Third, 1, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range h1.Sets {
		if s.Kind != program.ActionRule {
			t.Fatalf("hint 1 has a %v rule", s.Kind)
		}
	}
	h2, _ := HintProgram(p, nspda.Third, 2, 1, 1)
	h2r, _ := HintProgram(p, nspda.Third, 2, 1, 4)
	dead := func(pr *program.Program) int {
		n := 0
		for _, s := range pr.Sets {
			if s.IntoDead {
				n++
			}
		}
		return n
	}
	if dead(h2) == 0 || dead(h2r) >= dead(h2) {
		t.Errorf("dead rules: %d without refinement, %d with; refinement must drop the re-entry points", dead(h2), dead(h2r))
	}
	// q1 -a,⊥-> is a re-entry point of q0 -a,⊥-> q1.
	for _, s := range h2r.Sets {
		if s.Rule == "q1 -a,⊥-> dead noop" {
			t.Error("refined hint 2 programs q1 on (a, ⊥) into the dead state")
		}
	}
	syms, _ := p.Encode("abba")
	h := Hinted(p, 2, syms)
	if want := []bool{false, false, true, true, false}; !equal(h, want) {
		t.Errorf("Hinted(abba) = %v, want %v", h, want)
	}
	syms, _ = p.Encode("ab")
	if h := Hinted(p, 2, syms); !equal(h, []bool{false, false, true}) {
		t.Errorf("Hinted(ab) = %v: the accepting end marker is hinted", h)
	}
	if Hinted(p, 1, syms) != nil {
		t.Error("hint 1 programs no state transition, so no step is hinted")
	}
}

func equal(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
