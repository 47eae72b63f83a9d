package train

import (
	"math"
	"math/rand/v2"
	"testing"
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
