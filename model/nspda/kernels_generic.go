//go:build !goexperiment.simd || !amd64

package nspda

// Kernels names the lock-step kernels in use: "go" (plain Go loops) or,
// built with GOEXPERIMENT=simd, "simd/archsimd" (kernels_simd.go).
const Kernels = "go"

// The lock-step kernels (batch.go). A group of n strings that share one
// input symbol is held batch-innermost in nc = ⌈n/lanes⌉ chunks of lanes
// strings (the padding zero): a buffer of rows values per string holds row
// r of string m = c*lanes + q at (c*rows + r)*lanes + q. W is a
// contraction's weight tensor at one input: the weight from state neuron j
// and context row k (the read, at second order also the input) to output i
// is W[wb + (j*nout + i)*C + k]. A per-string matrix Cm (J·nout rows) holds
// the contraction of those weights with the string's context in row
// j*nout + i. The plain-Go kernels are in kernels_go.go.

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

// kApply sets out (nout rows) to bias[i] + Σ_j Cm[j·nout+i]·z[j], lane by
// lane: each string has its own matrix Cm (J·nout rows), its contraction
// with the symbol's read (batchsym.go).
func kApply(out, bias, Cm, z []float64, J, nout, nc int) { kApplyGo(out, bias, Cm, z, J, nout, nc) }

// kApplyT adds into dz (J rows) Σ_i Cm[j·nout+i]·d[i], lane by lane.
func kApplyT(dz, Cm, d []float64, J, nout, nc int) { kApplyTGo(dz, Cm, d, J, nout, nc) }

// kOuterSum writes Σ_{it<K} z_it[j]·d_it[i] into row j·nout+i of G, whose
// chunks are cs values apart (a gradient log's padded stride); z_it (J
// rows) and d_it (nout rows) are the K consecutive blocks of z and d.
func kOuterSum(G []float64, cs int, z, d []float64, K, J, nout, nc int) {
	kOuterSumGo(G, cs, z, d, K, J, nout, nc)
}

// kBackRows adds into dv (C rows) Σ_i W[wb + i·C + k]·G[i], G's chunks cs
// values apart.
func kBackRows(dv, W []float64, wb, C, nout int, G []float64, cs, nc int) {
	kBackRowsGo(dv, W, wb, C, nout, G, cs, nc)
}

// kBCE sets d[q] = w[q]·(σ(o[q]) − y[q]) and returns Σ_q w[q]·BCE(o[q],
// y[q]).
func kBCE(d, o, y, w []float64) float64 { return kBCEGo(d, o, y, w) }

// kForm sets Cm (nout rows) to Σ_k W[wb + i·C + k]·v[k]: the contraction of
// each row of W with the vector v (C rows) of each string.
func kForm(Cm, W []float64, wb, C, nout int, v []float64, nc int) {
	kFormGo(Cm, W, wb, C, nout, v, nc)
}

// kAddRows adds each chunk of d (rows rows) into acc (rows rows).
func kAddRows(acc, d []float64, rows, nc int) { kAddRowsGo(acc, d, rows, nc) }

// kGradLog adds into gW[wb + i·C + k] Σ_{c,q} d[c][i,q]·z[c][k,q] over the
// n chunks of the logs d (nout rows, chunk stride dcs) and z (C rows, chunk
// stride zcs).
func kGradLog(gW []float64, wb, C, nout int, d []float64, dcs int, z []float64, zcs, n int) {
	kGradLogGo(gW, wb, C, nout, d, dcs, z, zcs, n)
}

// kIter runs one iteration's state update: pre = bias + Cm·z (kApply),
// then kStepOut (zn, dsig and the logit lg); pre is scratch (J rows).
func kIter(zn, dsig, lg, pre, bias, Cm, z, Wo []float64, bo float64, J, nc int) {
	kIterGo(zn, dsig, lg, pre, bias, Cm, z, Wo, bo, J, nc)
}

// kIterBack runs one iteration's reverse step: dz (J rows, the gradient on
// the new state zn) gets the output term's gradient (kOutGrad, from d),
// dpre = dz·dsig is stored and summed into accBs (kDpre), and dz becomes
// the gradient on the state before the iteration, Cmᵀ·dpre (kApplyT).
func kIterBack(dz, dpre, accBs, accWo, accBo, d, zn, dsig, Wo, Cm []float64, J, nc int) {
	kIterBackGo(dz, dpre, accBs, accWo, accBo, d, zn, dsig, Wo, Cm, J, nc)
}
