package rnn

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/nspda/nspda/nn"
)

// blasMin is the smallest number of matrix columns (hidden units) for which
// the dense kernels call gonum's BLAS (assembly on amd64) instead of plain
// loops. BenchmarkKernels compares the two; below about 16 columns the call
// overhead of blas64 outweighs its vectorized inner loops.
var blasMin = 16

// mulVec sets y = A x for the len(y)×len(x) row-major matrix A.
func mulVec(y, a, x []float64) {
	m, n := len(y), len(x)
	if n >= blasMin {
		blas64.Gemv(blas.NoTrans, 1, general(a, m, n), vector(x), 0, vector(y))
		return
	}
	for i := range y {
		row := a[i*n : i*n+n]
		s := 0.0
		for j, w := range row {
			s += w * x[j]
		}
		y[i] = s
	}
}

// mulTVecAdd adds Aᵀ y into x for the len(y)×len(x) row-major matrix A.
func mulTVecAdd(x, a, y []float64) {
	m, n := len(y), len(x)
	if n >= blasMin {
		blas64.Gemv(blas.Trans, 1, general(a, m, n), vector(y), 1, vector(x))
		return
	}
	for i, yi := range y {
		if yi == 0 {
			continue
		}
		nn.Axpy(x, yi, a[i*n:i*n+n])
	}
}

// outerAdd adds y xᵀ into the len(y)×len(x) row-major matrix A.
func outerAdd(a, y, x []float64) {
	m, n := len(y), len(x)
	if n >= blasMin {
		blas64.Ger(1, vector(y), vector(x), general(a, m, n))
		return
	}
	for i, yi := range y {
		if yi == 0 {
			continue
		}
		nn.Axpy(a[i*n:i*n+n], yi, x)
	}
}

func general(a []float64, m, n int) blas64.General {
	return blas64.General{Rows: m, Cols: n, Stride: n, Data: a[:m*n]}
}

func vector(x []float64) blas64.Vector {
	return blas64.Vector{N: len(x), Inc: 1, Data: x}
}
