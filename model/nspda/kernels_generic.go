//go:build !goexperiment.simd || !amd64

package nspda

// Kernels is the name of the contraction kernels compiled in: "go" (plain
// Go loops) or, built with GOEXPERIMENT=simd, "simd/archsimd".
const Kernels = "go"

// The lock-step contraction kernels (batch.go). A group of n strings that
// share one input symbol is held batch-innermost in nc = ⌈n/lanes⌉ chunks of
// lanes strings (the padding zero): a buffer of rows values per string holds
// row r of string m = c*lanes + q at (c*rows + r)*lanes + q. W is a
// contraction's weight tensor: the weight from state neuron j and read neuron
// k to output i is W[wb + j*js + i*R + k]; zr (J·R rows) holds z_j·r_k in
// row j*R + k.

// kFwd adds into out (nout rows) Σ_{j,k} W[j,i,k]·zr[jk].
func kFwd(out, W []float64, wb, js, R, J, nout int, zr []float64, nc int) {
	for c := range nc {
		o := out[c*nout*lanes : (c+1)*nout*lanes]
		z := zr[c*J*R*lanes : (c+1)*J*R*lanes]
		for i := 0; i < nout; i++ {
			oi := (*[lanes]float64)(o[i*lanes:])
			for j := 0; j < J; j++ {
				w := W[wb+j*js+i*R : wb+j*js+i*R+R]
				zj := z[j*R*lanes : (j+1)*R*lanes]
				for k, wk := range w {
					v := (*[lanes]float64)(zj[k*lanes:])
					for q := range lanes {
						oi[q] += wk * v[q]
					}
				}
			}
		}
	}
}

// kBack adds into dzr (J·R rows) Σ_i W[j,i,k]·dout[i].
func kBack(dzr, W []float64, wb, js, R, J, nout int, dout []float64, nc int) {
	for c := range nc {
		d := dout[c*nout*lanes : (c+1)*nout*lanes]
		dz := dzr[c*J*R*lanes : (c+1)*J*R*lanes]
		for j := 0; j < J; j++ {
			for i := 0; i < nout; i++ {
				w := W[wb+j*js+i*R : wb+j*js+i*R+R]
				di := (*[lanes]float64)(d[i*lanes:])
				for k, wk := range w {
					a := (*[lanes]float64)(dz[(j*R+k)*lanes:])
					for q := range lanes {
						a[q] += wk * di[q]
					}
				}
			}
		}
	}
}

// kGrad adds into gW[wb + j*js + i*R + k] Σ_m dout[i, m]·zr[jk, m], the sum
// over the group's strings.
func kGrad(gW []float64, wb, js, R, J, nout int, dout, zr []float64, nc int) {
	for j := 0; j < J; j++ {
		for i := 0; i < nout; i++ {
			g := gW[wb+j*js+i*R : wb+j*js+i*R+R]
			for k := range g {
				s := 0.0
				for c := range nc {
					di := (*[lanes]float64)(dout[(c*nout+i)*lanes:])
					v := (*[lanes]float64)(zr[(c*J*R+j*R+k)*lanes:])
					for q := range lanes {
						s += di[q] * v[q]
					}
				}
				g[k] += s
			}
		}
	}
}

// lanes is the number of strings in a chunk of a group's buffers.
const lanes = 8

type kernelVariant struct {
	name string
	set  func()
}

// kernelVariants lists the compiled kernels, the default first.
func kernelVariants() []kernelVariant { return []kernelVariant{{"go", func() {}}} }

// dsigmoid sets dst[q] = σ'(src[q]) = σ(v)(1 − σ(v)).
func dsigmoid(dst, src []float64) { dsigmoidGo(dst, src) }

// accurateDsigmoid reports whether dsigmoid computes e/(1+e)² (accurate to
// 1e-12 relative everywhere) rather than σ(1−σ) (accurate to 1e-16
// absolute).
func accurateDsigmoid() bool { return false }

// kOuter sets zr[jk] = zin[j]·zin[J+k] for each chunk (zin: J+R rows, the
// state then the read).
func kOuter(zr, zin []float64, J, R, nc int) { kOuterGo(zr, zin, J, R, nc) }

// kOuterVJP adds the gradient dzr of zr = kOuter(zin) into dzin:
// dzin[j] += Σ_k dzr[jk]·zin[J+k], dzin[J+k] += Σ_j dzr[jk]·zin[j].
func kOuterVJP(dzin, dzr, zin []float64, J, R, nc int) { kOuterVJPGo(dzin, dzr, zin, J, R, nc) }
