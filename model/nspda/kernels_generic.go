//go:build !goexperiment.simd || !amd64

package nspda

// Kernels is the name of the contraction kernels compiled in: "go" (plain
// Go loops) or, built with GOEXPERIMENT=simd, "simd/archsimd".
const Kernels = "go"

// The lock-step contraction kernels (batch.go). A group of n strings that
// share one input symbol is held batch-innermost in buffers of stride np
// (n rounded up to lanes, the padding zero). W is a contraction's weight
// tensor; the weight from state neuron j and read neuron k to output i is
// W[wb + j*js + i*R + k]; zr[(j*R+k)*np + m] = z_j·r_k of string m.

// kFwd adds into out[i*np+m] (i < nout) Σ_{j,k} W[j,i,k]·zr[jk, m].
func kFwd(out, W []float64, wb, js, R, J, nout int, zr []float64, np int) {
	for i := 0; i < nout; i++ {
		o := out[i*np : i*np+np]
		for j := 0; j < J; j++ {
			row := W[wb+j*js+i*R : wb+j*js+i*R+R]
			for k, w := range row {
				src := zr[(j*R+k)*np : (j*R+k)*np+np]
				for m, v := range src {
					o[m] += w * v
				}
			}
		}
	}
}

// kBack adds into dzr[jk, m] Σ_i W[j,i,k]·dout[i*np+m].
func kBack(dzr, W []float64, wb, js, R, J, nout int, dout []float64, np int) {
	for j := 0; j < J; j++ {
		for k := 0; k < R; k++ {
			d := dzr[(j*R+k)*np : (j*R+k)*np+np]
			for i := 0; i < nout; i++ {
				w := W[wb+j*js+i*R+k]
				src := dout[i*np : i*np+np]
				for m, v := range src {
					d[m] += w * v
				}
			}
		}
	}
}

// kGrad adds dout[i*np+m]·zr[jk, m] into the lane accumulator
// gl[(wb + j*js + i*R + k)*lanes + m%lanes] of weight W[j,i,k]: the weight
// gradient, summed over the lanes by reduceLanes.
func kGrad(gl []float64, wb, js, R, J, nout int, dout, zr []float64, np int) {
	for j := 0; j < J; j++ {
		for i := 0; i < nout; i++ {
			d := dout[i*np : i*np+np]
			w0 := wb + j*js + i*R
			for k := 0; k < R; k++ {
				src := zr[(j*R+k)*np : (j*R+k)*np+np]
				g := gl[(w0+k)*lanes : (w0+k)*lanes+lanes]
				for c := 0; c < np; c += lanes {
					for q := range g {
						g[q] += d[c+q] * src[c+q]
					}
				}
			}
		}
	}
}

// lanes is the padding of a group's buffers.
const lanes = 8

type kernelVariant struct {
	name string
	set  func()
}

// kernelVariants lists the compiled kernels, the default first.
func kernelVariants() []kernelVariant { return []kernelVariant{{"go", func() {}}} }
