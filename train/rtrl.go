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
	m, mNext []float64 // influence matrix, row-major S×P
	jac      []float64 // ∂F/∂s, row-major S×S
	s, s2    []float64
	e, ds    []float64
	gs       []float64
	rec      any
	net      nn.Net
}

// Name is "rtrl".
func (*RTRL) Name() string { return "rtrl" }

// Gradient adds the exact gradient of the string's loss into grad.
func (r *RTRL) Gradient(net nn.Net, obj *Objective, ex Example, refine int, rng *rand.Rand, grad []float64) float64 {
	S, P := net.StateSize(), len(net.Params())
	r.m, r.mNext, r.jac = buf(r.m, S*P), buf(r.mNext, S*P), buf(r.jac, S*S)
	r.s, r.s2, r.e, r.ds, r.gs = buf(r.s, S), buf(r.s2, S), buf(r.e, S), buf(r.ds, S), buf(r.gs, S)
	if r.net != net {
		r.net, r.rec = net, net.NewRecord()
	}
	net.Start(r.s, rng)
	loss := 0.0
	for t := 0; t < ex.Steps(); t++ {
		l, k := ex.input(net, t), ex.iters(t, refine)
		for it := 0; it < k; it++ {
			o := net.Step(r.rec, r.s, r.s2, l, it == 0, it == k-1)
			if obj.actionAt(ex, t, it) {
				// A loss on the state before the iteration: M is still ∂s/∂θ.
				nn.Zero(r.gs)
				if l := obj.actionLoss(net, r.rec, ex, t, it, r.gs, grad); l != 0 {
					loss += l
					r.accumulate(S, P, grad)
				}
			}
			r.propagate(net, S, P)
			nn.Zero(r.gs)
			if y, on := ex.outTarget(t); on {
				loss += nn.BCE(o, y)
				net.OutVJP(r.rec, nn.Sigmoid(o)-y, r.gs, grad)
			}
			if it == k-1 {
				loss += obj.stateLoss(ex, t, r.s2, r.gs)
			}
			if ex.stopsAt(t, it, k) {
				loss += deadTerm(net, r.s2, r.gs)
			}
			r.accumulate(S, P, grad)
			r.s, r.s2 = r.s2, r.s
		}
	}
	return loss
}

// accumulate adds gsᵀ M into grad.
func (r *RTRL) accumulate(S, P int, grad []float64) {
	blas64.Gemv(blas.Trans, 1, blas64.General{Rows: S, Cols: P, Stride: P, Data: r.m}, blas64.Vector{N: S, Inc: 1, Data: r.gs}, 1, blas64.Vector{N: P, Inc: 1, Data: grad})
}

// propagate replaces M by (∂F/∂s) M + ∂F/∂θ for the iteration in r.rec.
func (r *RTRL) propagate(net nn.Net, S, P int) {
	nn.Zero(r.mNext)
	for i := 0; i < S; i++ {
		nn.Zero(r.e)
		r.e[i] = 1
		nn.Zero(r.ds)
		net.StepVJP(r.rec, r.e, r.ds, r.mNext[i*P:(i+1)*P])
		copy(r.jac[i*S:(i+1)*S], r.ds)
	}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1,
		blas64.General{Rows: S, Cols: S, Stride: S, Data: r.jac},
		blas64.General{Rows: S, Cols: P, Stride: P, Data: r.m},
		1, blas64.General{Rows: S, Cols: P, Stride: P, Data: r.mNext})
	r.m, r.mNext = r.mNext, r.m
}
