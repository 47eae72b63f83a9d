package train

import (
	"math"
	"math/rand/v2"
)

// Noise is the adaptive noise regularizer for higher-order tensors (paper
// Algorithm 2; docs/design.md section 5, "Adaptive noise"). A tensor A×B×C×D is viewed as its A·B
// matrices of C×D, in order; they are split into three contiguous,
// near-equal partitions; Percent % of each partition's matrices (at least
// one) are chosen at random; one p ~ N(0,1) is drawn; and the chosen
// matrices, partition by partition, are scaled in turn by (1 + p·Scale),
// halving p after each.
//
// The paper writes M ← (p·β)·M, which would overwrite the weights; we read it
// as multiplicative noise M ← (1 + p·β)·M applied to a copy used for one
// string's gradient, the clean weights being the ones updated (Apply perturbs
// in place; the caller restores).
type Noise struct {
	Percent float64 // N_p, in percent (the paper finds 8 to 30 useful)
	Scale   float64 // β (default 0.2)
}

// Tensored is implemented by nets with higher-order weight tensors: it lists
// each tensor the regularizer perturbs as its matrices, each matrix as the
// indices of its entries in Params.
type Tensored interface {
	NoiseMatrices() [][][]int
}

// Apply perturbs params in place, tensor by tensor. perm is scratch space
// for the random choice of matrices; Apply grows it when it is too short and
// returns it, so that a caller that keeps it allocates nothing per string.
// The matrices chosen are those of rng.Perm, drawn with the same random
// numbers.
func (n Noise) Apply(params []float64, tensors [][][]int, rng *rand.Rand, perm []int) []int {
	if n.Percent <= 0 {
		return perm
	}
	beta := n.Scale
	if beta == 0 {
		beta = 0.2
	}
	for _, mats := range tensors {
		K := len(mats)
		p := rng.NormFloat64()
		for part := 0; part < 3; part++ {
			lo, hi := part*K/3, (part+1)*K/3
			if hi <= lo {
				continue
			}
			take := max(1, int(math.Round(n.Percent/100*float64(hi-lo))))
			perm = permInto(perm, hi-lo, rng)
			for _, m := range perm[:min(take, hi-lo)] {
				f := 1 + p*beta
				for _, idx := range mats[lo+m] {
					params[idx] *= f
				}
				p /= 2
			}
		}
	}
	return perm
}

// permInto is rng.Perm(k) written into buf (grown if shorter than k): the
// same Fisher–Yates shuffle of 0..k-1 consuming the same random numbers,
// without allocating.
func permInto(buf []int, k int, rng *rand.Rand) []int {
	if cap(buf) < k {
		buf = make([]int, k)
	}
	buf = buf[:k]
	for i := range buf {
		buf[i] = i
	}
	rng.Shuffle(k, func(i, j int) { buf[i], buf[j] = buf[j], buf[i] })
	return buf
}
