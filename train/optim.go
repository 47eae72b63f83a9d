package train

import (
	"fmt"
	"math"
)

// Optimizers by name: "sgd", the paper's (element-wise clipping, the
// stochastic schedule), and "adam" (Kingma and Ba 2015, at a constant rate).
var Optimizers = []string{"sgd", "adam"}

// Adam is the Adam optimizer over every trained vector (the net's parameters
// then the heads'), with bias-corrected moments:
//
//	m ← β1·m + (1−β1)·g,  v ← β2·v + (1−β2)·g²,
//	θ ← θ − η · (m/(1−β1ᵗ)) / (sqrt(v/(1−β2ᵗ)) + ε).
//
// Its state is saved in checkpoints.
type Adam struct {
	Beta1 float64   `json:"beta1"`
	Beta2 float64   `json:"beta2"`
	Eps   float64   `json:"eps"`
	T     int       `json:"t"`
	M     []float64 `json:"m"`
	V     []float64 `json:"v"`
}

// NewAdam returns Adam with the usual β1 = 0.9, β2 = 0.999, ε = 1e-8 for n
// values.
func NewAdam(n int) *Adam {
	return &Adam{Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, M: make([]float64, n), V: make([]float64, n)}
}

// Step updates params (a list of vectors, in a fixed order) from grads. It
// refuses a non-finite gradient or a step that makes a weight non-finite.
func (a *Adam) Step(params, grads [][]float64, lr float64) error {
	a.T++
	c1 := 1 - math.Pow(a.Beta1, float64(a.T))
	c2 := 1 - math.Pow(a.Beta2, float64(a.T))
	off := 0
	for s, p := range params {
		m, v := a.M[off:off+len(p)], a.V[off:off+len(p)]
		for i, g := range grads[s] {
			if g-g != 0 {
				return fmt.Errorf("gradient of parameter %d is %v", off+i, g)
			}
			m[i] = a.Beta1*m[i] + (1-a.Beta1)*g
			v[i] = a.Beta2*v[i] + (1-a.Beta2)*g*g
			w := p[i] - lr*(m[i]/c1)/(math.Sqrt(v[i]/c2)+a.Eps)
			if w-w != 0 {
				return fmt.Errorf("parameter %d became %v", off+i, w)
			}
			p[i] = w
		}
		off += len(p)
	}
	return nil
}

// Reset forgets the moments (after a rollback to earlier weights).
func (a *Adam) Reset() {
	a.T = 0
	clear(a.M)
	clear(a.V)
}

// clipNorm scales the vectors of grads together so that their joint
// Euclidean norm is at most c, and returns the norm before scaling.
func clipNorm(grads [][]float64, c float64) float64 {
	ss := 0.0
	for _, g := range grads {
		for _, v := range g {
			ss += v * v
		}
	}
	n := math.Sqrt(ss)
	if n > c {
		f := c / n
		for _, g := range grads {
			for i := range g {
				g[i] *= f
			}
		}
	}
	return n
}

// scale multiplies every vector of grads by f.
func scale(grads [][]float64, f float64) {
	for _, g := range grads {
		for i := range g {
			g[i] *= f
		}
	}
}
