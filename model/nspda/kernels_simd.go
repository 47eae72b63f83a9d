//go:build goexperiment.simd && amd64

package nspda

import "simd/archsimd"

// Kernels names the lock-step kernels in use: "go" (plain Go loops) or,
// built with GOEXPERIMENT=simd, "simd/archsimd" on a CPU with AVX-512 (the
// lock-step kernels need it; the read tables also run on AVX2), and
// "simd/archsimd without AVX-512" otherwise.
var Kernels = map[bool]string{true: "simd/archsimd", false: "simd/archsimd without AVX-512"}[archsimd.X86.AVX512()]

// lanes is the number of strings in a chunk: one 512-bit vector.
const lanes = 8

// avx512 chooses the Float64x8 kernels; without AVX-512 the kernels run
// in plain Go (kernels_go.go). Tests switch it to check both.
var avx512 = archsimd.X86.AVX512()

// The kernels below compute what kernels_go.go's do (see kernels_generic.go
// for the layouts), with fused multiply-adds and sums in another order: the
// same results to rounding.

func load8(s []float64) archsimd.Float64x8 { return archsimd.LoadFloat64x8((*[8]float64)(s)) }
func bcast8(v float64) archsimd.Float64x8  { return archsimd.BroadcastFloat64x8(v) }
func load4(s []float64) archsimd.Float64x4 { return archsimd.LoadFloat64x4((*[4]float64)(s)) }
func bcast4(v float64) archsimd.Float64x4  { return archsimd.BroadcastFloat64x4(v) }

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

type kernelVariant struct {
	name string
	set  func()
}

// kernelVariants lists the compiled kernels, the default first.
func kernelVariants() []kernelVariant {
	best := archsimd.X86.AVX512()
	vs := []kernelVariant{{"default", func() { avx512 = best }}}
	if best {
		vs = append(vs, kernelVariant{"go", func() { avx512 = false }})
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
	var zero archsimd.Float64x8
	one := bcast8(1)
	for q := 0; q+8 <= len(src) && q+8 <= len(dst); q += 8 {
		v := load8(src[q : q+8])
		e := expNeg8(zero.Sub(v).Min(v)) // exp(−|v|)
		d := one.Add(e)
		y := recip8(d)
		e.Mul(y).Mul(y).Store((*[8]float64)(dst[q : q+8]))
	}
}

// expNeg8 returns exp(x) for x ≤ 0 (x < −700 is taken as −700): a degree-13
// Taylor polynomial after reduction by ln 2 (relative error below 1e-15).
func expNeg8(x archsimd.Float64x8) archsimd.Float64x8 {
	var (
		one   = bcast8(1)
		log2e = bcast8(1.44269504088896338700e+00)
		ln2hi = bcast8(-6.93147180369123816490e-01)
		ln2lo = bcast8(-1.90821492927058770002e-10)
		bias  = archsimd.BroadcastInt64x8(1023)
	)
	x = x.Max(bcast8(-700))
	n := x.Mul(log2e).RoundToEvenScaled(0)
	r := n.MulAdd(ln2hi, x)
	r = n.MulAdd(ln2lo, r)
	p := bcast8(1.0 / 6227020800)                                             // 1/13!
	p = p.MulAdd(r, bcast8(1.0/479001600))                                    // 1/12!
	p = p.MulAdd(r, bcast8(1.0/39916800))                                     // 1/11!
	p = p.MulAdd(r, bcast8(1.0/3628800))                                      // 1/10!
	p = p.MulAdd(r, bcast8(1.0/362880))                                       // 1/9!
	p = p.MulAdd(r, bcast8(1.0/40320))                                        // 1/8!
	p = p.MulAdd(r, bcast8(1.0/5040))                                         // 1/7!
	p = p.MulAdd(r, bcast8(1.0/720))                                          // 1/6!
	p = p.MulAdd(r, bcast8(1.0/120))                                          // 1/5!
	p = p.MulAdd(r, bcast8(1.0/24))                                           // 1/4!
	p = p.MulAdd(r, bcast8(1.0/6))                                            // 1/3!
	p = p.MulAdd(r, bcast8(0.5))                                              // 1/2!
	p = p.MulAdd(r, one)                                                      // 1/1!
	p = p.MulAdd(r, one)                                                      // 1/0!
	return p.Mul(n.ConvertToInt64().Add(bias).ShiftAllLeft(52).AsFloat64x8()) // ·2^n
}

// recip8 returns 1/d for 1 ≤ d ≤ 4: VRCP14PD's 14-bit estimate, refined
// by two Newton steps (y += y·(1 − d·y)) to about 2⁻⁵⁶ relative; a vector
// division costs several times as much.
func recip8(d archsimd.Float64x8) archsimd.Float64x8 {
	var zero archsimd.Float64x8
	one, nd := bcast8(1), zero.Sub(d)
	y := d.Reciprocal()
	y = y.MulAdd(nd.MulAdd(y, one), y)
	return y.MulAdd(nd.MulAdd(y, one), y)
}

// log1p8 returns log(1+e) for 0 ≤ e ≤ 1, without forming 1+e: 2·atanh(s)
// with s = e/(2+e) for e ≤ √2−1, and ln 2 + 2·atanh(s) with s = f/(2+f),
// f = (e−1)/2, above; |s| ≤ 0.1716, and the odd series of atanh to s²¹
// leaves a relative error below 1e-16.
func log1p8(e archsimd.Float64x8) archsimd.Float64x8 {
	one, two := bcast8(1), bcast8(2)
	hi := e.Greater(bcast8(0.41421356237309503))
	f := e.Sub(one).Mul(bcast8(0.5)).Merge(e, hi)
	sv := f.Mul(recip8(two.Add(f)))
	s2 := sv.Mul(sv)
	p := bcast8(1.0 / 21)
	for _, c := range [...]float64{1.0 / 19, 1.0 / 17, 1.0 / 15, 1.0 / 13, 1.0 / 11, 1.0 / 9, 1.0 / 7, 1.0 / 5, 1.0 / 3, 1} {
		p = p.MulAdd(s2, bcast8(c))
	}
	var zero archsimd.Float64x8
	return sv.Add(sv).Mul(p).Add(bcast8(0.6931471805599453094).Merge(zero, hi))
}

// kBCE sets d[q] = w[q]·(σ(o[q]) − y[q]) and returns Σ_q w[q]·BCE(o[q],
// y[q]); len(o) is a multiple of 8.
func kBCE(d, o, y, w []float64) float64 {
	if !avx512 {
		return kBCEGo(d, o, y, w)
	}
	var zero, acc archsimd.Float64x8
	one := bcast8(1)
	for q := 0; q+8 <= len(o) && q+8 <= len(d) && q+8 <= len(y) && q+8 <= len(w); q += 8 {
		v, yv, wv := load8(o[q:q+8]), load8(y[q:q+8]), load8(w[q:q+8])
		e := expNeg8(zero.Sub(v).Min(v))
		sg := recip8(one.Add(e))
		sg = sg.Merge(e.Mul(sg), v.GreaterEqual(zero))
		wv.Mul(sg.Sub(yv)).Store((*[8]float64)(d[q : q+8]))
		l := v.Max(zero).Add(log1p8(e)).Sub(yv.Mul(v))
		acc = wv.MulAdd(l, acc)
	}
	return hsum8(acc)
}

// accurateDsigmoid reports whether dsigmoid computes e/(1+e)² (accurate to
// 1e-12 relative everywhere) rather than σ(1−σ) (accurate to 1e-16
// absolute).
func accurateDsigmoid() bool { return avx512 }

// kApply sets out (nout rows) to bias[i] + Σ_j Cm[j·nout+i]·z[j], lane by
// lane, four output rows at a time.
func kApply(out, bias, Cm, z []float64, J, nout, nc int) {
	if !avx512 {
		kApplyGo(out, bias, Cm, z, J, nout, nc)
		return
	}
	cs := J * nout * 8
	for c := range nc {
		o := out[c*nout*8 : (c+1)*nout*8]
		zc := z[c*J*8 : (c+1)*J*8]
		m := Cm[c*cs : (c+1)*cs]
		i := 0
		for ; i+4 <= nout; i += 4 {
			a0, a1, a2, a3 := apply4(m, zc, bias, J, nout, i)
			a0.Store((*[8]float64)(o[i*8 : i*8+8]))
			a1.Store((*[8]float64)(o[i*8+8 : i*8+16]))
			a2.Store((*[8]float64)(o[i*8+16 : i*8+24]))
			a3.Store((*[8]float64)(o[i*8+24 : i*8+32]))
		}
		for ; i < nout; i++ {
			a := apply1(m, zc, bias, J, nout, i)
			a.Store((*[8]float64)(o[i*8 : i*8+8]))
		}
	}
}

// apply4 returns bias[i+h] + Σ_j m[j·nout+i+h]·zc[j], h = 0…3, for one
// chunk (m: J·nout rows, zc: J rows).
func apply4(m, zc, bias []float64, J, nout, i int) (a0, a1, a2, a3 archsimd.Float64x8) {
	a0, a1, a2, a3 = bcast8(bias[i]), bcast8(bias[i+1]), bcast8(bias[i+2]), bcast8(bias[i+3])
	for j := 0; j < J; j++ {
		zj := load8(zc[j*8 : j*8+8])
		r := m[(j*nout+i)*8 : (j*nout+i)*8+32]
		a0 = load8(r[0:8]).MulAdd(zj, a0)
		a1 = load8(r[8:16]).MulAdd(zj, a1)
		a2 = load8(r[16:24]).MulAdd(zj, a2)
		a3 = load8(r[24:32]).MulAdd(zj, a3)
	}
	return a0, a1, a2, a3
}

// apply1 is apply4 for row i alone.
func apply1(m, zc, bias []float64, J, nout, i int) archsimd.Float64x8 {
	a := bcast8(bias[i])
	for j := 0; j < J; j++ {
		a = load8(m[(j*nout+i)*8:(j*nout+i)*8+8]).MulAdd(load8(zc[j*8:j*8+8]), a)
	}
	return a
}

// kApplyT adds into dz (J rows) Σ_i Cm[j·nout+i]·d[i], lane by lane, four
// rows j at a time.
func kApplyT(dz, Cm, d []float64, J, nout, nc int) {
	if !avx512 {
		kApplyTGo(dz, Cm, d, J, nout, nc)
		return
	}
	cs := J * nout * 8
	for c := range nc {
		applyTChunk(dz[c*J*8:(c+1)*J*8], Cm[c*cs:(c+1)*cs], d[c*nout*8:(c+1)*nout*8], J, nout, true)
	}
}

// applyTChunk adds into g (J rows) Σ_i m[j·nout+i]·dc[i] for one chunk
// (add false: writes it), four rows j at a time.
func applyTChunk(g, m, dc []float64, J, nout int, add bool) {
	j := 0
	for ; j+4 <= J; j += 4 {
		var a0, a1, a2, a3 archsimd.Float64x8
		if add {
			a0, a1, a2, a3 = load8(g[j*8:j*8+8]), load8(g[j*8+8:j*8+16]), load8(g[j*8+16:j*8+24]), load8(g[j*8+24:j*8+32])
		}
		r0, r1, r2, r3 := m[j*nout*8:], m[(j+1)*nout*8:], m[(j+2)*nout*8:], m[(j+3)*nout*8:]
		for i := 0; i < nout; i++ {
			di := load8(dc[i*8 : i*8+8])
			a0 = load8(r0[i*8:i*8+8]).MulAdd(di, a0)
			a1 = load8(r1[i*8:i*8+8]).MulAdd(di, a1)
			a2 = load8(r2[i*8:i*8+8]).MulAdd(di, a2)
			a3 = load8(r3[i*8:i*8+8]).MulAdd(di, a3)
		}
		a0.Store((*[8]float64)(g[j*8 : j*8+8]))
		a1.Store((*[8]float64)(g[j*8+8 : j*8+16]))
		a2.Store((*[8]float64)(g[j*8+16 : j*8+24]))
		a3.Store((*[8]float64)(g[j*8+24 : j*8+32]))
	}
	for ; j < J; j++ {
		var a archsimd.Float64x8
		if add {
			a = load8(g[j*8 : j*8+8])
		}
		r := m[j*nout*8:]
		for i := 0; i < nout; i++ {
			a = load8(r[i*8:i*8+8]).MulAdd(load8(dc[i*8:i*8+8]), a)
		}
		a.Store((*[8]float64)(g[j*8 : j*8+8]))
	}
}

// kOuterSum writes Σ_{it<K} z_it[j]·d_it[i] into row j·nout+i of G, whose
// chunks are cs values apart (a gradient log's padded stride); z_it (J
// rows) and d_it (nout rows) are the K consecutive blocks of z and d. Each row of G is stored once.
func kOuterSum(G []float64, cs int, z, d []float64, K, J, nout, nc int) {
	if !avx512 {
		kOuterSumGo(G, cs, z, d, K, J, nout, nc)
		return
	}
	zs, ds := J*nc*8, nout*nc*8
	if K == 4 { // the paper's refinement: z_it[j] held in registers
		for c := range nc {
			g := G[c*cs:]
			for j := 0; j < J; j++ {
				zo := (c*J + j) * 8
				z0, z1 := load8(z[zo:zo+8]), load8(z[zs+zo:zs+zo+8])
				z2, z3 := load8(z[2*zs+zo:2*zs+zo+8]), load8(z[3*zs+zo:3*zs+zo+8])
				for i := 0; i < nout; i++ {
					do := (c*nout + i) * 8
					a := z0.Mul(load8(d[do : do+8]))
					a = z1.MulAdd(load8(d[ds+do:ds+do+8]), a)
					a = z2.MulAdd(load8(d[2*ds+do:2*ds+do+8]), a)
					a = z3.MulAdd(load8(d[3*ds+do:3*ds+do+8]), a)
					a.Store((*[8]float64)(g[(j*nout+i)*8 : (j*nout+i)*8+8]))
				}
			}
		}
		return
	}
	for c := range nc {
		g := G[c*cs:]
		for j := 0; j < J; j++ {
			zo := (c*J + j) * 8
			for i := 0; i < nout; i++ {
				do := (c*nout + i) * 8
				a := load8(z[zo : zo+8]).Mul(load8(d[do : do+8]))
				for it := 1; it < K; it++ {
					a = load8(z[it*zs+zo:it*zs+zo+8]).MulAdd(load8(d[it*ds+do:it*ds+do+8]), a)
				}
				a.Store((*[8]float64)(g[(j*nout+i)*8 : (j*nout+i)*8+8]))
			}
		}
	}
}

// kBackRows adds into dv (C rows) Σ_i W[wb + i·C + k]·G[i], G's chunks cs
// values apart: four rows k at a time.
func kBackRows(dv, W []float64, wb, C, nout int, G []float64, cs, nc int) {
	if !avx512 {
		kBackRowsGo(dv, W, wb, C, nout, G, cs, nc)
		return
	}
	w := W[wb : wb+nout*C]
	for c := range nc {
		v := dv[c*C*8 : (c+1)*C*8]
		g := G[c*cs:]
		end := C                // rows k below end run four at a time, then one at a time
		if C%4 == 1 && C >= 5 { // the last five in one pass over G
			end = C - 5
			k := end
			a0, a1, a2, a3, a4 := load8(v[k*8:k*8+8]), load8(v[k*8+8:k*8+16]), load8(v[k*8+16:k*8+24]), load8(v[k*8+24:k*8+32]), load8(v[k*8+32:k*8+40])
			for i := 0; i < nout; i++ {
				gi := load8(g[i*8 : i*8+8])
				r := w[i*C+k : i*C+k+5]
				a0, a1 = gi.MulAdd(bcast8(r[0]), a0), gi.MulAdd(bcast8(r[1]), a1)
				a2, a3 = gi.MulAdd(bcast8(r[2]), a2), gi.MulAdd(bcast8(r[3]), a3)
				a4 = gi.MulAdd(bcast8(r[4]), a4)
			}
			a0.Store((*[8]float64)(v[k*8 : k*8+8]))
			a1.Store((*[8]float64)(v[k*8+8 : k*8+16]))
			a2.Store((*[8]float64)(v[k*8+16 : k*8+24]))
			a3.Store((*[8]float64)(v[k*8+24 : k*8+32]))
			a4.Store((*[8]float64)(v[k*8+32 : k*8+40]))
		}
		k := 0
		for ; k+4 <= end; k += 4 {
			a0, a1, a2, a3 := load8(v[k*8:k*8+8]), load8(v[k*8+8:k*8+16]), load8(v[k*8+16:k*8+24]), load8(v[k*8+24:k*8+32])
			for i := 0; i < nout; i++ {
				gi := load8(g[i*8 : i*8+8])
				r := w[i*C+k : i*C+k+4]
				a0, a1 = gi.MulAdd(bcast8(r[0]), a0), gi.MulAdd(bcast8(r[1]), a1)
				a2, a3 = gi.MulAdd(bcast8(r[2]), a2), gi.MulAdd(bcast8(r[3]), a3)
			}
			a0.Store((*[8]float64)(v[k*8 : k*8+8]))
			a1.Store((*[8]float64)(v[k*8+8 : k*8+16]))
			a2.Store((*[8]float64)(v[k*8+16 : k*8+24]))
			a3.Store((*[8]float64)(v[k*8+24 : k*8+32]))
		}
		for ; k < end; k++ {
			a := load8(v[k*8 : k*8+8])
			for i := 0; i < nout; i++ {
				a = load8(g[i*8:i*8+8]).MulAdd(bcast8(w[i*C+k]), a)
			}
			a.Store((*[8]float64)(v[k*8 : k*8+8]))
		}
	}
}

// kForm sets Cm (nout rows) to Σ_k W[wb + i·C + k]·v[k]: the contraction of
// each row of W with the vector v (C rows) of each string, four rows at a
// time (four accumulators that share each load of v).
func kForm(Cm, W []float64, wb, C, nout int, v []float64, nc int) {
	if !avx512 {
		kFormGo(Cm, W, wb, C, nout, v, nc)
		return
	}
	w := W[wb : wb+nout*C]
	for c := range nc {
		vc := v[c*C*8 : (c+1)*C*8]
		o := Cm[c*nout*8 : (c+1)*nout*8]
		i := 0
		for ; i+4 <= nout; i += 4 {
			r0, r1, r2, r3 := w[i*C:(i+1)*C], w[(i+1)*C:(i+2)*C], w[(i+2)*C:(i+3)*C], w[(i+3)*C:(i+4)*C]
			var a0, a1, a2, a3 archsimd.Float64x8
			for k := 0; k < C && k < len(r0) && k < len(r1) && k < len(r2) && k < len(r3); k++ {
				vk := load8(vc[k*8 : k*8+8])
				a0, a1 = vk.MulAdd(bcast8(r0[k]), a0), vk.MulAdd(bcast8(r1[k]), a1)
				a2, a3 = vk.MulAdd(bcast8(r2[k]), a2), vk.MulAdd(bcast8(r3[k]), a3)
			}
			a0.Store((*[8]float64)(o[i*8 : i*8+8]))
			a1.Store((*[8]float64)(o[i*8+8 : i*8+16]))
			a2.Store((*[8]float64)(o[i*8+16 : i*8+24]))
			a3.Store((*[8]float64)(o[i*8+24 : i*8+32]))
		}
		for ; i < nout; i++ {
			var a archsimd.Float64x8
			for k, wk := range w[i*C : (i+1)*C] {
				a = load8(vc[k*8:k*8+8]).MulAdd(bcast8(wk), a)
			}
			a.Store((*[8]float64)(o[i*8 : i*8+8]))
		}
	}
}

// kAddRows adds each chunk of d (rows rows) into acc (rows rows).
func kAddRows(acc, d []float64, rows, nc int) {
	if !avx512 {
		kAddRowsGo(acc, d, rows, nc)
		return
	}
	for c := range nc {
		src := d[c*rows*8 : (c+1)*rows*8]
		for r := 0; r+8 <= len(src) && r+8 <= len(acc); r += 8 {
			p := (*[8]float64)(acc[r : r+8])
			archsimd.LoadFloat64x8(p).Add(load8(src[r : r+8])).Store(p)
		}
	}
}

// kGradLog adds into gW[wb + i·C + k] Σ_{c,q} d[c][i,q]·z[c][k,q] over the
// n chunks of the logs d (nout rows, chunk stride dcs) and z (C rows, chunk
// stride zcs): two rows i by four rows k at a time, eight accumulators.
func kGradLog(gW []float64, wb, C, nout int, d []float64, dcs int, z []float64, zcs, n int) {
	if !avx512 {
		kGradLogGo(gW, wb, C, nout, d, dcs, z, zcs, n)
		return
	}
	g := gW[wb : wb+nout*C]
	i := 0
	for ; i+2 <= nout; i += 2 {
		k := 0
		for ; k+4 <= C; k += 4 {
			var a00, a01, a02, a03, a10, a11, a12, a13 archsimd.Float64x8
			for c := 0; c < n; c++ {
				dd := d[c*dcs+i*8 : c*dcs+i*8+16]
				zz := z[c*zcs+k*8 : c*zcs+k*8+32]
				x0, x1 := load8(dd[0:8]), load8(dd[8:16])
				y0, y1, y2, y3 := load8(zz[0:8]), load8(zz[8:16]), load8(zz[16:24]), load8(zz[24:32])
				a00, a01, a02, a03 = x0.MulAdd(y0, a00), x0.MulAdd(y1, a01), x0.MulAdd(y2, a02), x0.MulAdd(y3, a03)
				a10, a11, a12, a13 = x1.MulAdd(y0, a10), x1.MulAdd(y1, a11), x1.MulAdd(y2, a12), x1.MulAdd(y3, a13)
			}
			addReduced4(g[i*C+k:], a00, a01, a02, a03)
			addReduced4(g[(i+1)*C+k:], a10, a11, a12, a13)
		}
		for ; k < C; k++ {
			var a0, a1 archsimd.Float64x8
			for c := 0; c < n; c++ {
				dd := d[c*dcs+i*8 : c*dcs+i*8+16]
				y := load8(z[c*zcs+k*8 : c*zcs+k*8+8])
				a0, a1 = load8(dd[0:8]).MulAdd(y, a0), load8(dd[8:16]).MulAdd(y, a1)
			}
			g[i*C+k] += hsum8(a0)
			g[(i+1)*C+k] += hsum8(a1)
		}
	}
	for ; i < nout; i++ {
		for k := range C {
			var a archsimd.Float64x8
			for c := 0; c < n; c++ {
				a = load8(d[c*dcs+i*8:c*dcs+i*8+8]).MulAdd(load8(z[c*zcs+k*8:c*zcs+k*8+8]), a)
			}
			g[i*C+k] += hsum8(a)
		}
	}
}

// kIter runs one iteration's state update: pre = bias + Cm·z (kApply),
// then kStepOut (zn, dsig and the logit lg), four outputs at a time, with
// pre kept in registers.
func kIter(zn, dsig, lg, pre, bias, Cm, z, Wo []float64, bo float64, J, nc int) {
	if !avx512 {
		kIterGo(zn, dsig, lg, pre, bias, Cm, z, Wo, bo, J, nc)
		return
	}
	cs := J * J * 8
	for c := range nc {
		zc := z[c*J*8 : (c+1)*J*8]
		m := Cm[c*cs : (c+1)*cs]
		zo, ds := zn[c*J*8:(c+1)*J*8], dsig[c*J*8:(c+1)*J*8]
		o := bcast8(bo)
		i := 0
		for ; i+4 <= J; i += 4 {
			a0, a1, a2, a3 := apply4(m, zc, bias, J, J, i)
			o = stepFin(zo, ds, Wo, i, a0, o)
			o = stepFin(zo, ds, Wo, i+1, a1, o)
			o = stepFin(zo, ds, Wo, i+2, a2, o)
			o = stepFin(zo, ds, Wo, i+3, a3, o)
		}
		for ; i < J; i++ {
			a := apply1(m, zc, bias, J, J, i)
			o = stepFin(zo, ds, Wo, i, a, o)
		}
		o.Store((*[8]float64)(lg[c*8 : c*8+8]))
	}
}

// stepFin stores output i's state [v > 0] and σ'(v) from its
// pre-activation v, and returns the logit o plus its term.
func stepFin(zc, ds, Wo []float64, i int, v, o archsimd.Float64x8) archsimd.Float64x8 {
	var zero archsimd.Float64x8
	one := bcast8(1)
	b := one.Masked(v.Greater(zero))
	b.Store((*[8]float64)(zc[i*8 : i*8+8]))
	e := expNeg8(zero.Sub(v).Min(v))
	d := one.Add(e)
	y := recip8(d)
	e.Mul(y).Mul(y).Store((*[8]float64)(ds[i*8 : i*8+8]))
	return b.MulAdd(bcast8(Wo[i]), o)
}

// kIterBack runs one iteration's reverse step: dz (J rows, the gradient on
// the new state zn) gets the output term's gradient (kOutGrad, from d),
// dpre = dz·dsig is stored and summed into accBs (kDpre), and dz becomes
// the gradient on the state before the iteration, Cmᵀ·dpre (kApplyT), one
// chunk at a time.
func kIterBack(dz, dpre, accBs, accWo, accBo, d, zn, dsig, Wo, Cm []float64, J, nc int) {
	if !avx512 {
		kIterBackGo(dz, dpre, accBs, accWo, accBo, d, zn, dsig, Wo, Cm, J, nc)
		return
	}
	bo := (*[8]float64)(accBo[:8])
	ab := archsimd.LoadFloat64x8(bo)
	cs := J * J * 8
	for c := range nc {
		dc := load8(d[c*8 : c*8+8])
		ab = ab.Add(dc)
		g, zc := dz[c*J*8:(c+1)*J*8], zn[c*J*8:(c+1)*J*8]
		sg, dp := dsig[c*J*8:(c+1)*J*8], dpre[c*J*8:(c+1)*J*8]
		for i, w := range Wo[:J] {
			a := (*[8]float64)(accWo[i*8 : i*8+8])
			dc.MulAdd(load8(zc[i*8:i*8+8]), archsimd.LoadFloat64x8(a)).Store(a)
			p := dc.MulAdd(bcast8(w), load8(g[i*8:i*8+8])).Mul(load8(sg[i*8 : i*8+8]))
			p.Store((*[8]float64)(dp[i*8 : i*8+8]))
			b := (*[8]float64)(accBs[i*8 : i*8+8])
			archsimd.LoadFloat64x8(b).Add(p).Store(b)
		}
		applyTChunk(g, Cm[c*cs:(c+1)*cs], dp, J, J, false)
	}
	ab.Store(bo)
}
