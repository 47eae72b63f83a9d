package nspda

import "math"

// Discretize returns a copy of m whose weight tensors Ws and Wa are ternary,
// each weight replaced by −α, 0 or +α (per tensor), the paper's "before
// evaluation, the weights are converted to discrete values" (Sec. 3.2).
// The paper does not say how; we use ternary weight networks (Li, Zhang and
// Liu 2016): weights with |w| ≤ Δ = 0.7·mean|w| become 0, the others
// sign(w)·α with α the mean |w| of those kept. Biases and the output layer
// are left as they are.
func (m *Model) Discretize() *Model {
	c := m.Clone()
	ternarize(c.Ws)
	ternarize(c.Wa)
	return c
}

func ternarize(w []float64) {
	if len(w) == 0 {
		return
	}
	mean := 0.0
	for _, v := range w {
		mean += math.Abs(v)
	}
	delta := 0.7 * mean / float64(len(w))
	alpha, n := 0.0, 0
	for _, v := range w {
		if math.Abs(v) > delta {
			alpha += math.Abs(v)
			n++
		}
	}
	if n > 0 {
		alpha /= float64(n)
	}
	for i, v := range w {
		switch {
		case v > delta:
			w[i] = alpha
		case v < -delta:
			w[i] = -alpha
		default:
			w[i] = 0
		}
	}
}
