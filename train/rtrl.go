package train

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/nspda/nspda/nn"
)

// RTRL is real-time recurrent learning (Williams and Zipser 1989; paper
// appendix, eqs. 8-9). It carries the influence matrix M = ∂s/∂θ (S × P)
// forward through the string,
//
//	M_{i+1} = (∂F/∂s) M_i + ∂F/∂θ,
//	∂L_i/∂θ = (∂L_i/∂o)(∂o/∂s_{i+1} M_{i+1} + ∂o/∂θ),
//
// and so needs no tape. Its gradient is the same as BPTT's up to rounding.
// The Jacobians of each iteration come from S calls to StepVJP with unit
// vectors: row i of ∂F/∂s and of ∂F/∂θ. Cost per iteration: S StepVJPs and an
// S×S by S×P product; memory S·P.
type RTRL struct {
	forward
	m, mNext []float64 // influence matrix, row-major S×P
	jac      []float64 // ∂F/∂s, row-major S×S
	e, ds    []float64
	S, P     int
}

// Name is "rtrl".
func (*RTRL) Name() string { return "rtrl" }

// Gradient adds the exact gradient of the string's loss into grad.
func (r *RTRL) Gradient(net nn.Net, obj *Objective, ex Example, refine int, rng *rand.Rand, grad []float64) float64 {
	S, P := net.StateSize(), len(net.Params())
	r.S, r.P = S, P
	r.m, r.mNext, r.jac = buf(r.m, S*P), buf(r.mNext, S*P), buf(r.jac, S*S)
	r.e, r.ds = buf(r.e, S), buf(r.ds, S)
	return r.sweep(r, net, obj, ex, refine, rng, grad)
}

// accumulate adds gsᵀ M into grad.
func (r *RTRL) accumulate(gs, grad []float64) {
	S, P := r.S, r.P
	blas64.Gemv(blas.Trans, 1, blas64.General{Rows: S, Cols: P, Stride: P, Data: r.m}, blas64.Vector{N: S, Inc: 1, Data: gs}, 1, blas64.Vector{N: P, Inc: 1, Data: grad})
}

// propagate replaces M by (∂F/∂s) M + ∂F/∂θ for the iteration in rec.
func (r *RTRL) propagate(net nn.Net, rec any) {
	S, P := r.S, r.P
	nn.Zero(r.mNext)
	for i := 0; i < S; i++ {
		nn.Zero(r.e)
		r.e[i] = 1
		nn.Zero(r.ds)
		net.StepVJP(rec, r.e, r.ds, r.mNext[i*P:(i+1)*P])
		copy(r.jac[i*S:(i+1)*S], r.ds)
	}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1,
		blas64.General{Rows: S, Cols: S, Stride: S, Data: r.jac},
		blas64.General{Rows: S, Cols: P, Stride: P, Data: r.m},
		1, blas64.General{Rows: S, Cols: P, Stride: P, Data: r.mNext})
	r.m, r.mNext = r.mNext, r.m
}
