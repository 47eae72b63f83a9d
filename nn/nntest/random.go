package nntest

import "math/rand/v2"

// FillNormal sets every element of x to a standard normal draw from a PCG
// source seeded with (seed, stream): random weights for tests that exercise
// every nonlinearity.
func FillNormal(x []float64, seed, stream uint64) {
	rng := rand.New(rand.NewPCG(seed, stream))
	for i := range x {
		x[i] = rng.NormFloat64()
	}
}
