//go:build goexperiment.simd && amd64

package nspda

import "simd/archsimd"

// Kernels is the name of the contraction kernels compiled in: "go" (plain
// Go loops) or, built with GOEXPERIMENT=simd, "simd/archsimd".
const Kernels = "simd/archsimd"

// lanes is the padding of a group's buffers: one 512-bit vector.
const lanes = 8

// avx512 chooses the Float64x8 kernels; without AVX-512 the kernels run on
// pairs of Float64x4 (AVX2 and FMA). Tests switch it to check both.
var avx512 = archsimd.X86.AVX512()

// The kernels below compute what kernels_generic.go's do, with fused
// multiply-adds and sums in another order (the same results to rounding).

// kFwd adds into out[i*np+m] (i < nout) Σ_{j,k} W[j,i,k]·zr[jk, m]. Four
// output rows at a time keep four independent accumulators.
func kFwd(out, W []float64, wb, js, R, J, nout int, zr []float64, np int) {
	if !avx512 {
		kFwd4(out, W, wb, js, R, J, nout, zr, np)
		return
	}
	i := 0
	for ; i+4 <= nout; i += 4 {
		for c := 0; c < np; c += 8 {
			a0 := archsimd.LoadFloat64x8Slice(out[i*np+c:])
			a1 := archsimd.LoadFloat64x8Slice(out[(i+1)*np+c:])
			a2 := archsimd.LoadFloat64x8Slice(out[(i+2)*np+c:])
			a3 := archsimd.LoadFloat64x8Slice(out[(i+3)*np+c:])
			for j := 0; j < J; j++ {
				w := W[wb+j*js+i*R : wb+j*js+(i+4)*R]
				for k := 0; k < R; k++ {
					v := archsimd.LoadFloat64x8Slice(zr[(j*R+k)*np+c:])
					a0 = v.MulAdd(archsimd.BroadcastFloat64x8(w[k]), a0)
					a1 = v.MulAdd(archsimd.BroadcastFloat64x8(w[R+k]), a1)
					a2 = v.MulAdd(archsimd.BroadcastFloat64x8(w[2*R+k]), a2)
					a3 = v.MulAdd(archsimd.BroadcastFloat64x8(w[3*R+k]), a3)
				}
			}
			a0.StoreSlice(out[i*np+c:])
			a1.StoreSlice(out[(i+1)*np+c:])
			a2.StoreSlice(out[(i+2)*np+c:])
			a3.StoreSlice(out[(i+3)*np+c:])
		}
	}
	for ; i < nout; i++ {
		for c := 0; c < np; c += 8 {
			a := archsimd.LoadFloat64x8Slice(out[i*np+c:])
			for j := 0; j < J; j++ {
				w := W[wb+j*js+i*R : wb+j*js+i*R+R]
				for k, wk := range w {
					a = archsimd.LoadFloat64x8Slice(zr[(j*R+k)*np+c:]).MulAdd(archsimd.BroadcastFloat64x8(wk), a)
				}
			}
			a.StoreSlice(out[i*np+c:])
		}
	}
}

func kFwd4(out, W []float64, wb, js, R, J, nout int, zr []float64, np int) {
	for i := 0; i < nout; i++ {
		for c := 0; c < np; c += 8 {
			a := archsimd.LoadFloat64x4Slice(out[i*np+c:])
			b := archsimd.LoadFloat64x4Slice(out[i*np+c+4:])
			for j := 0; j < J; j++ {
				w := W[wb+j*js+i*R : wb+j*js+i*R+R]
				for k, wk := range w {
					bw := archsimd.BroadcastFloat64x4(wk)
					src := zr[(j*R+k)*np+c:]
					a = archsimd.LoadFloat64x4Slice(src).MulAdd(bw, a)
					b = archsimd.LoadFloat64x4Slice(src[4:]).MulAdd(bw, b)
				}
			}
			a.StoreSlice(out[i*np+c:])
			b.StoreSlice(out[i*np+c+4:])
		}
	}
}

// kBack adds into dzr[jk, m] Σ_i W[j,i,k]·dout[i*np+m], with two
// accumulators (even and odd i).
func kBack(dzr, W []float64, wb, js, R, J, nout int, dout []float64, np int) {
	if !avx512 {
		kBack4(dzr, W, wb, js, R, J, nout, dout, np)
		return
	}
	for j := 0; j < J; j++ {
		w := W[wb+j*js : wb+j*js+nout*R]
		for k := 0; k < R; k++ {
			d := dzr[(j*R+k)*np:]
			for c := 0; c < np; c += 8 {
				a := archsimd.LoadFloat64x8Slice(d[c:])
				var b archsimd.Float64x8
				i := 0
				for ; i+2 <= nout; i += 2 {
					a = archsimd.LoadFloat64x8Slice(dout[i*np+c:]).MulAdd(archsimd.BroadcastFloat64x8(w[i*R+k]), a)
					b = archsimd.LoadFloat64x8Slice(dout[(i+1)*np+c:]).MulAdd(archsimd.BroadcastFloat64x8(w[(i+1)*R+k]), b)
				}
				if i < nout {
					a = archsimd.LoadFloat64x8Slice(dout[i*np+c:]).MulAdd(archsimd.BroadcastFloat64x8(w[i*R+k]), a)
				}
				a.Add(b).StoreSlice(d[c:])
			}
		}
	}
}

func kBack4(dzr, W []float64, wb, js, R, J, nout int, dout []float64, np int) {
	for j := 0; j < J; j++ {
		w := W[wb+j*js : wb+j*js+nout*R]
		for k := 0; k < R; k++ {
			d := dzr[(j*R+k)*np:]
			for c := 0; c < np; c += 8 {
				a := archsimd.LoadFloat64x4Slice(d[c:])
				b := archsimd.LoadFloat64x4Slice(d[c+4:])
				for i := 0; i < nout; i++ {
					bw := archsimd.BroadcastFloat64x4(w[i*R+k])
					src := dout[i*np+c:]
					a = archsimd.LoadFloat64x4Slice(src).MulAdd(bw, a)
					b = archsimd.LoadFloat64x4Slice(src[4:]).MulAdd(bw, b)
				}
				a.StoreSlice(d[c:])
				b.StoreSlice(d[c+4:])
			}
		}
	}
}

// kGrad adds dout[i*np+m]·zr[jk, m] into the lane accumulator
// gl[(wb + j*js + i*R + k)*lanes + m%lanes] of weight W[j,i,k].
func kGrad(gl []float64, wb, js, R, J, nout int, dout, zr []float64, np int) {
	if !avx512 {
		kGrad4(gl, wb, js, R, J, nout, dout, zr, np)
		return
	}
	for j := 0; j < J; j++ {
		for i := 0; i < nout; i++ {
			w0 := (wb + j*js + i*R) * lanes
			for c := 0; c < np; c += 8 {
				d := archsimd.LoadFloat64x8Slice(dout[i*np+c:])
				for k := 0; k < R; k++ {
					g := gl[w0+k*lanes:]
					archsimd.LoadFloat64x8Slice(zr[(j*R+k)*np+c:]).MulAdd(d, archsimd.LoadFloat64x8Slice(g)).StoreSlice(g)
				}
			}
		}
	}
}

func kGrad4(gl []float64, wb, js, R, J, nout int, dout, zr []float64, np int) {
	for j := 0; j < J; j++ {
		for i := 0; i < nout; i++ {
			w0 := (wb + j*js + i*R) * lanes
			for c := 0; c < np; c += 8 {
				d0 := archsimd.LoadFloat64x4Slice(dout[i*np+c:])
				d1 := archsimd.LoadFloat64x4Slice(dout[i*np+c+4:])
				for k := 0; k < R; k++ {
					g := gl[w0+k*lanes:]
					src := zr[(j*R+k)*np+c:]
					archsimd.LoadFloat64x4Slice(src).MulAdd(d0, archsimd.LoadFloat64x4Slice(g)).StoreSlice(g)
					archsimd.LoadFloat64x4Slice(src[4:]).MulAdd(d1, archsimd.LoadFloat64x4Slice(g[4:])).StoreSlice(g[4:])
				}
			}
		}
	}
}

type kernelVariant struct {
	name string
	set  func()
}

// kernelVariants lists the compiled kernels, the default first.
func kernelVariants() []kernelVariant {
	best := archsimd.X86.AVX512()
	vs := []kernelVariant{{"default", func() { avx512 = best }}}
	if best {
		vs = append(vs, kernelVariant{"avx2", func() { avx512 = false }})
	}
	return vs
}
