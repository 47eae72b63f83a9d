//go:build goexperiment.simd && amd64

package nspda

import "simd/archsimd"

// Kernels is the name of the contraction kernels compiled in: "go" (plain
// Go loops) or, built with GOEXPERIMENT=simd, "simd/archsimd".
const Kernels = "simd/archsimd"

// lanes is the number of strings in a chunk: one 512-bit vector.
const lanes = 8

// avx512 chooses the Float64x8 kernels; without AVX-512 the kernels run on
// pairs of Float64x4 (AVX2 and FMA). Tests switch it to check both.
var avx512 = archsimd.X86.AVX512()

// The kernels below compute what kernels_generic.go's do (see there for
// the layouts), with fused multiply-adds and sums in another order: the same
// results to rounding.

func load8(s []float64) archsimd.Float64x8 { return archsimd.LoadFloat64x8((*[8]float64)(s)) }
func bcast8(v float64) archsimd.Float64x8  { return archsimd.BroadcastFloat64x8(v) }
func load4(s []float64) archsimd.Float64x4 { return archsimd.LoadFloat64x4((*[4]float64)(s)) }
func bcast4(v float64) archsimd.Float64x4  { return archsimd.BroadcastFloat64x4(v) }

// kFwd adds into out (nout rows) Σ_{j,k} W[j,i,k]·zr[jk], four output rows
// at a time (four independent accumulators that share each load of zr).
func kFwd(out, W []float64, wb, js, R, J, nout int, zr []float64, nc int) {
	if !avx512 {
		kFwd4(out, W, wb, js, R, J, nout, zr, nc)
		return
	}
	for c := range nc {
		o := out[c*nout*8 : (c+1)*nout*8]
		z := zr[c*J*R*8 : (c+1)*J*R*8]
		i := 0
		for ; i+4 <= nout; i += 4 {
			a0, a1, a2, a3 := load8(o[i*8:i*8+8]), load8(o[i*8+8:i*8+16]), load8(o[i*8+16:i*8+24]), load8(o[i*8+24:i*8+32])
			for j := 0; j < J; j++ {
				base := wb + j*js + i*R
				w0 := W[base : base+R]
				w1 := W[base+R : base+2*R][:len(w0)]
				w2 := W[base+2*R : base+3*R][:len(w0)]
				w3 := W[base+3*R : base+4*R][:len(w0)]
				zj := z[j*R*8 : (j+1)*R*8]
				for k, wk := range w0 {
					v := load8(zj[k*8 : k*8+8])
					a0 = v.MulAdd(bcast8(wk), a0)
					a1 = v.MulAdd(bcast8(w1[k]), a1)
					a2 = v.MulAdd(bcast8(w2[k]), a2)
					a3 = v.MulAdd(bcast8(w3[k]), a3)
				}
			}
			a0.Store((*[8]float64)(o[i*8 : i*8+8]))
			a1.Store((*[8]float64)(o[i*8+8 : i*8+16]))
			a2.Store((*[8]float64)(o[i*8+16 : i*8+24]))
			a3.Store((*[8]float64)(o[i*8+24 : i*8+32]))
		}
		for ; i < nout; i++ {
			a := load8(o[i*8 : i*8+8])
			for j := 0; j < J; j++ {
				w := W[wb+j*js+i*R : wb+j*js+i*R+R]
				zj := z[j*R*8 : (j+1)*R*8]
				for k, wk := range w {
					a = load8(zj[k*8:k*8+8]).MulAdd(bcast8(wk), a)
				}
			}
			a.Store((*[8]float64)(o[i*8 : i*8+8]))
		}
	}
}

func kFwd4(out, W []float64, wb, js, R, J, nout int, zr []float64, nc int) {
	for c := range nc {
		o := out[c*nout*8 : (c+1)*nout*8]
		z := zr[c*J*R*8 : (c+1)*J*R*8]
		i := 0
		for ; i+2 <= nout; i += 2 {
			a0, b0 := load4(o[i*8:i*8+4]), load4(o[i*8+4:i*8+8])
			a1, b1 := load4(o[i*8+8:i*8+12]), load4(o[i*8+12:i*8+16])
			for j := 0; j < J; j++ {
				base := wb + j*js + i*R
				w0 := W[base : base+R]
				w1 := W[base+R : base+2*R][:len(w0)]
				zj := z[j*R*8 : (j+1)*R*8]
				for k, wk := range w0 {
					v, u := load4(zj[k*8:k*8+4]), load4(zj[k*8+4:k*8+8])
					x0, x1 := bcast4(wk), bcast4(w1[k])
					a0, b0 = v.MulAdd(x0, a0), u.MulAdd(x0, b0)
					a1, b1 = v.MulAdd(x1, a1), u.MulAdd(x1, b1)
				}
			}
			a0.Store((*[4]float64)(o[i*8 : i*8+4]))
			b0.Store((*[4]float64)(o[i*8+4 : i*8+8]))
			a1.Store((*[4]float64)(o[i*8+8 : i*8+12]))
			b1.Store((*[4]float64)(o[i*8+12 : i*8+16]))
		}
		for ; i < nout; i++ {
			a, b := load4(o[i*8:i*8+4]), load4(o[i*8+4:i*8+8])
			for j := 0; j < J; j++ {
				w := W[wb+j*js+i*R : wb+j*js+i*R+R]
				zj := z[j*R*8 : (j+1)*R*8]
				for k, wk := range w {
					x := bcast4(wk)
					a = load4(zj[k*8:k*8+4]).MulAdd(x, a)
					b = load4(zj[k*8+4:k*8+8]).MulAdd(x, b)
				}
			}
			a.Store((*[4]float64)(o[i*8 : i*8+4]))
			b.Store((*[4]float64)(o[i*8+4 : i*8+8]))
		}
	}
}

// kBack adds into dzr (J·R rows) Σ_i W[j,i,k]·dout[i], four rows jk at a
// time (four accumulators that share each load of dout).
func kBack(dzr, W []float64, wb, js, R, J, nout int, dout []float64, nc int) {
	JR := J * R
	for c := range nc {
		d := dout[c*nout*8 : (c+1)*nout*8]
		dz := dzr[c*JR*8 : (c+1)*JR*8]
		jk := 0
		for ; jk+4 <= JR; jk += 4 {
			p0 := wb + (jk/R)*js + jk%R
			p1 := wb + ((jk+1)/R)*js + (jk+1)%R
			p2 := wb + ((jk+2)/R)*js + (jk+2)%R
			p3 := wb + ((jk+3)/R)*js + (jk+3)%R
			g := dz[jk*8 : jk*8+32]
			if avx512 {
				a0, a1, a2, a3 := load8(g[0:8]), load8(g[8:16]), load8(g[16:24]), load8(g[24:32])
				for i := 0; i < nout; i++ {
					di := load8(d[i*8 : i*8+8])
					a0 = di.MulAdd(bcast8(W[p0]), a0)
					a1 = di.MulAdd(bcast8(W[p1]), a1)
					a2 = di.MulAdd(bcast8(W[p2]), a2)
					a3 = di.MulAdd(bcast8(W[p3]), a3)
					p0, p1, p2, p3 = p0+R, p1+R, p2+R, p3+R
				}
				a0.Store((*[8]float64)(g[0:8]))
				a1.Store((*[8]float64)(g[8:16]))
				a2.Store((*[8]float64)(g[16:24]))
				a3.Store((*[8]float64)(g[24:32]))
				continue
			}
			for h := 0; h < 8; h += 4 {
				a0, a1, a2, a3 := load4(g[h:h+4]), load4(g[8+h:12+h]), load4(g[16+h:20+h]), load4(g[24+h:28+h])
				q0, q1, q2, q3 := p0, p1, p2, p3
				for i := 0; i < nout; i++ {
					di := load4(d[i*8+h : i*8+h+4])
					a0 = di.MulAdd(bcast4(W[q0]), a0)
					a1 = di.MulAdd(bcast4(W[q1]), a1)
					a2 = di.MulAdd(bcast4(W[q2]), a2)
					a3 = di.MulAdd(bcast4(W[q3]), a3)
					q0, q1, q2, q3 = q0+R, q1+R, q2+R, q3+R
				}
				a0.Store((*[4]float64)(g[h : h+4]))
				a1.Store((*[4]float64)(g[8+h : 12+h]))
				a2.Store((*[4]float64)(g[16+h : 20+h]))
				a3.Store((*[4]float64)(g[24+h : 28+h]))
			}
		}
		for ; jk < JR; jk++ {
			p := wb + (jk/R)*js + jk%R
			g := dz[jk*8 : jk*8+8]
			for q := range 8 {
				s := g[q]
				for i := 0; i < nout; i++ {
					s += W[p+i*R] * d[i*8+q]
				}
				g[q] = s
			}
		}
	}
}

// kGrad adds into gW[wb + j*js + i*R + k] Σ_m dout[i, m]·zr[jk, m], the sum
// over the group's strings. For each state neuron j the weights (i, k) are
// contiguous: four at a time, their products are folded to four lanes and
// summed by a transposing reduction into one vector added to gW.
func kGrad(gW []float64, wb, js, R, J, nout int, dout, zr []float64, nc int) {
	if avx512 {
		kGrad8(gW, wb, js, R, J, nout, dout, zr, nc)
		return
	}
	n := nout * R
	ds, zs := nout*8, J*R*8
	for j := 0; j < J; j++ {
		g := gW[wb+j*js : wb+j*js+n]
		zoff := j * R * 8
		f := 0
		i, k := 0, 0 // f = i*R + k
		for ; f+4 <= n; f += 4 {
			var p [4]archsimd.Float64x4
			for h := range p {
				p[h] = prod(dout, zr, i*8, zoff+k*8, ds, zs, nc)
				if k++; k == R {
					i, k = i+1, 0
				}
			}
			h1 := p[0].AddPairsGrouped(p[1])
			h2 := p[2].AddPairsGrouped(p[3])
			sum := h1.Select128FromPair(0, 2, h2).Add(h1.Select128FromPair(1, 3, h2))
			gp := (*[4]float64)(g[f : f+4])
			archsimd.LoadFloat64x4(gp).Add(sum).Store(gp)
		}
		for ; f < n; f++ {
			v := prod(dout, zr, i*8, zoff+k*8, ds, zs, nc)
			w := v.GetLo().Add(v.GetHi())
			g[f] += w.AddPairs(w).GetElem(0)
			if k++; k == R {
				i, k = i+1, 0
			}
		}
	}
}

// kGrad8 is kGrad on AVX-512. For each state neuron j, the weights of two
// outputs i and four read neurons k are summed over every chunk in eight
// registers (each chunk's four product rows and two output-gradient rows
// loaded once for eight fused multiply-adds), then folded to four lanes and
// reduced four at a time by a transposing reduction; leftover k and i run in
// narrower blocks. (Four outputs, sixteen registers, ran slower: the compiler
// spilled them.)
func kGrad8(gW []float64, wb, js, R, J, nout int, dout, zr []float64, nc int) {
	ds, zs := nout*8, J*R*8
	for j := 0; j < J; j++ {
		g := gW[wb+j*js : wb+j*js+nout*R]
		zoff := j * R * 8
		i := 0
		for ; i+2 <= nout; i += 2 {
			k := 0
			for ; k+4 <= R; k += 4 {
				var a00, a01, a02, a03, a10, a11, a12, a13 archsimd.Float64x8
				for c := 0; c < nc; c++ {
					z := zr[c*zs+zoff+k*8 : c*zs+zoff+k*8+32]
					d := dout[c*ds+i*8 : c*ds+i*8+16]
					z0, z1, z2, z3 := load8(z[0:8]), load8(z[8:16]), load8(z[16:24]), load8(z[24:32])
					d0, d1 := load8(d[0:8]), load8(d[8:16])
					a00, a01, a02, a03 = d0.MulAdd(z0, a00), d0.MulAdd(z1, a01), d0.MulAdd(z2, a02), d0.MulAdd(z3, a03)
					a10, a11, a12, a13 = d1.MulAdd(z0, a10), d1.MulAdd(z1, a11), d1.MulAdd(z2, a12), d1.MulAdd(z3, a13)
				}
				addReduced4(g[i*R+k:], a00, a01, a02, a03)
				addReduced4(g[(i+1)*R+k:], a10, a11, a12, a13)
			}
			for ; k < R; k++ {
				var a0, a1 archsimd.Float64x8
				for c := 0; c < nc; c++ {
					z := load8(zr[c*zs+zoff+k*8 : c*zs+zoff+k*8+8])
					d := dout[c*ds+i*8 : c*ds+i*8+16]
					a0, a1 = load8(d[0:8]).MulAdd(z, a0), load8(d[8:16]).MulAdd(z, a1)
				}
				g[i*R+k] += hsum8(a0)
				g[(i+1)*R+k] += hsum8(a1)
			}
		}
		for ; i < nout; i++ {
			k := 0
			for ; k+4 <= R; k += 4 {
				var a0, a1, a2, a3 archsimd.Float64x8
				for c := 0; c < nc; c++ {
					z := zr[c*zs+zoff+k*8 : c*zs+zoff+k*8+32]
					d := load8(dout[c*ds+i*8 : c*ds+i*8+8])
					a0, a1 = d.MulAdd(load8(z[0:8]), a0), d.MulAdd(load8(z[8:16]), a1)
					a2, a3 = d.MulAdd(load8(z[16:24]), a2), d.MulAdd(load8(z[24:32]), a3)
				}
				addReduced4(g[i*R+k:], a0, a1, a2, a3)
			}
			for ; k < R; k++ {
				var a archsimd.Float64x8
				for c := 0; c < nc; c++ {
					a = load8(dout[c*ds+i*8:c*ds+i*8+8]).MulAdd(load8(zr[c*zs+zoff+k*8:c*zs+zoff+k*8+8]), a)
				}
				g[i*R+k] += hsum8(a)
			}
		}
	}
}

// addReduced4 adds the lane sums of a0, a1, a2 and a3 into g[0:4].
func addReduced4(g []float64, a0, a1, a2, a3 archsimd.Float64x8) {
	h1 := fold(a0).AddPairsGrouped(fold(a1))
	h2 := fold(a2).AddPairsGrouped(fold(a3))
	sum := h1.Select128FromPair(0, 2, h2).Add(h1.Select128FromPair(1, 3, h2))
	gp := (*[4]float64)(g[:4])
	archsimd.LoadFloat64x4(gp).Add(sum).Store(gp)
}

// hsum8 is the sum of a's lanes.
func hsum8(a archsimd.Float64x8) float64 {
	v := fold(a)
	w := v.GetLo().Add(v.GetHi())
	return w.AddPairs(w).GetElem(0)
}

func fold(a archsimd.Float64x8) archsimd.Float64x4 { return a.GetLo().Add(a.GetHi()) }

// prod returns Σ_c dout[doff + c*ds:][:8]·zr[zoff + c*zs:][:8], folded to
// four lanes.
func prod(dout, zr []float64, doff, zoff, ds, zs, nc int) archsimd.Float64x4 {
	if !avx512 {
		a := load4(dout[doff : doff+4]).Mul(load4(zr[zoff : zoff+4]))
		b := load4(dout[doff+4 : doff+8]).Mul(load4(zr[zoff+4 : zoff+8]))
		for c := 1; c < nc; c++ {
			d, z := doff+c*ds, zoff+c*zs
			a = load4(dout[d:d+4]).MulAdd(load4(zr[z:z+4]), a)
			b = load4(dout[d+4:d+8]).MulAdd(load4(zr[z+4:z+8]), b)
		}
		return a.Add(b)
	}
	a := load8(dout[doff : doff+8]).Mul(load8(zr[zoff : zoff+8]))
	for c := 1; c < nc; c++ {
		d, z := doff+c*ds, zoff+c*zs
		a = load8(dout[d:d+8]).MulAdd(load8(zr[z:z+8]), a)
	}
	return a.GetLo().Add(a.GetHi())
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

// dsigmoid sets dst[q] = σ'(src[q]) = σ(v)(1 − σ(v)), computed as
// e/(1+e)² with e = exp(−|v|) (for |v| > 700, e = exp(−700)); len(src) is a
// multiple of 8. The AVX-512 path evaluates exp with a degree-13 Taylor
// polynomial after reduction by ln 2 (relative error below 1e-15).
func dsigmoid(dst, src []float64) {
	if !avx512 {
		dsigmoidGo(dst, src)
		return
	}
	var (
		zero  archsimd.Float64x8
		one   = bcast8(1)
		lo    = bcast8(-700)
		log2e = bcast8(1.44269504088896338700e+00)
		ln2hi = bcast8(-6.93147180369123816490e-01)
		ln2lo = bcast8(-1.90821492927058770002e-10)
		bias  = archsimd.BroadcastInt64x8(1023)
	)
	for q := 0; q+8 <= len(src) && q+8 <= len(dst); q += 8 {
		v := load8(src[q : q+8])
		x := zero.Sub(v).Min(v).Max(lo) // −|v|, ≥ −700
		n := x.Mul(log2e).RoundToEvenScaled(0)
		r := n.MulAdd(ln2hi, x)
		r = n.MulAdd(ln2lo, r)
		p := bcast8(1.0 / 6227020800)                                        // 1/13!
		p = p.MulAdd(r, bcast8(1.0/479001600))                               // 1/12!
		p = p.MulAdd(r, bcast8(1.0/39916800))                                // 1/11!
		p = p.MulAdd(r, bcast8(1.0/3628800))                                 // 1/10!
		p = p.MulAdd(r, bcast8(1.0/362880))                                  // 1/9!
		p = p.MulAdd(r, bcast8(1.0/40320))                                   // 1/8!
		p = p.MulAdd(r, bcast8(1.0/5040))                                    // 1/7!
		p = p.MulAdd(r, bcast8(1.0/720))                                     // 1/6!
		p = p.MulAdd(r, bcast8(1.0/120))                                     // 1/5!
		p = p.MulAdd(r, bcast8(1.0/24))                                      // 1/4!
		p = p.MulAdd(r, bcast8(1.0/6))                                       // 1/3!
		p = p.MulAdd(r, bcast8(0.5))                                         // 1/2!
		p = p.MulAdd(r, one)                                                 // 1/1!
		p = p.MulAdd(r, one)                                                 // 1/0!
		scale := n.ConvertToInt64().Add(bias).ShiftAllLeft(52).AsFloat64x8() // 2^n
		e := p.Mul(scale)
		d := one.Add(e)
		e.Div(d.Mul(d)).Store((*[8]float64)(dst[q : q+8]))
	}
}

// accurateDsigmoid reports whether dsigmoid computes e/(1+e)² (accurate to
// 1e-12 relative everywhere) rather than σ(1−σ) (accurate to 1e-16
// absolute).
func accurateDsigmoid() bool { return avx512 }

// kOuter sets zr[jk] = zin[j]·zin[J+k] for each chunk (zin: J+R rows, the
// state then the read).
func kOuter(zr, zin []float64, J, R, nc int) {
	if !avx512 {
		kOuterGo(zr, zin, J, R, nc)
		return
	}
	for c := range nc {
		in := zin[c*(J+R)*8 : (c+1)*(J+R)*8]
		out := zr[c*J*R*8 : (c+1)*J*R*8]
		rs := in[J*8:]
		for j := range J {
			z := load8(in[j*8 : j*8+8])
			o := out[j*R*8 : (j+1)*R*8]
			for k := 0; k+8 <= len(o) && k+8 <= len(rs); k += 8 {
				z.Mul(load8(rs[k : k+8])).Store((*[8]float64)(o[k : k+8]))
			}
		}
	}
}

// kOuterVJP adds the gradient dzr of zr = kOuter(zin) into dzin:
// dzin[j] += Σ_k dzr[jk]·zin[J+k], dzin[J+k] += Σ_j dzr[jk]·zin[j].
func kOuterVJP(dzin, dzr, zin []float64, J, R, nc int) {
	if !avx512 {
		kOuterVJPGo(dzin, dzr, zin, J, R, nc)
		return
	}
	for c := range nc {
		in := zin[c*(J+R)*8 : (c+1)*(J+R)*8]
		din := dzin[c*(J+R)*8 : (c+1)*(J+R)*8]
		dz := dzr[c*J*R*8 : (c+1)*J*R*8]
		rs, drs := in[J*8:], din[J*8:]
		for j := range J {
			z := load8(in[j*8 : j*8+8])
			dzj := (*[8]float64)(din[j*8 : j*8+8])
			acc := archsimd.LoadFloat64x8(dzj)
			d := dz[j*R*8 : (j+1)*R*8]
			for k := 0; k+8 <= len(d) && k+8 <= len(rs) && k+8 <= len(drs); k += 8 {
				dk := load8(d[k : k+8])
				acc = dk.MulAdd(load8(rs[k:k+8]), acc)
				p := (*[8]float64)(drs[k : k+8])
				dk.MulAdd(z, archsimd.LoadFloat64x8(p)).Store(p)
			}
			acc.Store(dzj)
		}
	}
}
