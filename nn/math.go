package nn

import "math"

// Sigmoid is the logistic function σ(v) = 1/(1+e^−v).
func Sigmoid(v float64) float64 { return 1 / (1 + math.Exp(-v)) }

// BCE is the binary cross-entropy of prediction σ(o) against label y ∈ {0,1}
// (paper eq. 4), computed from the logit so that it never takes log 0:
// BCE = softplus(o) − y·o. Its derivative with respect to o is σ(o) − y.
func BCE(o float64, y float64) float64 {
	// softplus(o) = log(1+e^o), stably.
	sp := math.Max(o, 0) + math.Log1p(math.Exp(-math.Abs(o)))
	return sp - y*o
}

// BCEGrad returns BCE(o, y) and its derivative σ(o) − y from one
// exponential: the same values as BCE and Sigmoid up to rounding (for
// o ≥ 0, σ(o) is Sigmoid's to the bit).
func BCEGrad(o, y float64) (loss, d float64) {
	e := math.Exp(-math.Abs(o))
	sg := 1 / (1 + e)
	if o < 0 {
		sg = e * sg
	}
	return math.Max(o, 0) + math.Log1p(e) - y*o, sg - y
}

// Dot returns Σ a_i b_i.
func Dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// NonzeroLen is the length of v without its trailing zeros.
func NonzeroLen(v []float64) int {
	n := len(v)
	for n > 0 && v[n-1] == 0 {
		n--
	}
	return n
}

// Zero sets every element of v to 0.
func Zero(v []float64) {
	for i := range v {
		v[i] = 0
	}
}
