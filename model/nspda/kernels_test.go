package nspda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nspda/nspda/nn"
)

// randv returns n values from rng: normal, or with binary true 0 or 1.
func randv(rng *rand.Rand, n int, binary bool) []float64 {
	v := make([]float64, n)
	for i := range v {
		if binary {
			v[i] = float64(rng.IntN(2))
		} else {
			v[i] = rng.NormFloat64()
		}
	}
	return v
}

// near fails t unless got and want agree to 1e-12 relative.
func near(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if d := math.Abs(got[i] - want[i]); d > 1e-12*(1+math.Abs(want[i])) || math.IsNaN(got[i]) {
			t.Fatalf("%s: [%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// TestKernels checks each compiled variant of the lock-step kernels (plain
// Go; with GOEXPERIMENT=simd also AVX-512) against loops written here from
// their definitions, to 1e-12 relative, on group buffers of nc chunks
// (row r of lane q of chunk c at (c·rows + r)·lanes + q).
func TestKernels(t *testing.T) {
	for _, v := range kernelVariants() {
		v.set()
		for _, J := range []int{1, 3, 8, 13, 32} {
			for _, nc := range []int{1, 3} {
				for _, C := range []int{3, 5, 9} {
					for _, K := range []int{1, 4} {
						name := fmt.Sprintf("%s/J%d/nc%d/C%d/K%d", v.name, J, nc, C, K)
						checkKernels(t, name, uint64(J*1000+nc*100+C*10+K), J, nc, C, K)
					}
				}
			}
		}
	}
	kernelVariants()[0].set()
}

func checkKernels(t *testing.T, name string, seed uint64, J, nc, C, K int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	const A, L = 4, 3
	W := randv(rng, L*J*J*C, false)
	wb := 1 * J * J * C
	v := randv(rng, nc*C*lanes, false)
	ix := func(rows, c, r, q int) int { return (c*rows+r)*lanes + q }
	// kForm: Cm[i'] = Σ_k W[wb + i'·C + k]·v[k].
	Cm := make([]float64, nc*J*J*lanes)
	kForm(Cm, W, wb, C, J*J, v, nc)
	want := make([]float64, len(Cm))
	for c := range nc {
		for r := range J * J {
			for q := range lanes {
				for k := range C {
					want[ix(J*J, c, r, q)] += W[wb+r*C+k] * v[ix(C, c, k, q)]
				}
			}
		}
	}
	near(t, name+" kForm", Cm, want)
	// kApply: out[i] = bias[i] + Σ_j Cm[j·A+i]·z[j] (A outputs).
	Ca := randv(rng, nc*J*A*lanes, false)
	z := randv(rng, nc*J*lanes, true)
	bias := randv(rng, A, false)
	out := make([]float64, nc*A*lanes)
	kApply(out, bias, Ca, z, J, A, nc)
	want = make([]float64, len(out))
	for c := range nc {
		for i := range A {
			for q := range lanes {
				s := bias[i]
				for j := range J {
					s += Ca[ix(J*A, c, j*A+i, q)] * z[ix(J, c, j, q)]
				}
				want[ix(A, c, i, q)] = s
			}
		}
	}
	near(t, name+" kApply", out, want)
	// kApplyT: dz[j] += Σ_i Ca[j·A+i]·d[i].
	d := randv(rng, nc*A*lanes, false)
	dz := randv(rng, nc*J*lanes, false)
	want = append([]float64(nil), dz...)
	kApplyT(dz, Ca, d, J, A, nc)
	for c := range nc {
		for j := range J {
			for q := range lanes {
				for i := range A {
					want[ix(J, c, j, q)] += Ca[ix(J*A, c, j*A+i, q)] * d[ix(A, c, i, q)]
				}
			}
		}
	}
	near(t, name+" kApplyT", dz, want)
	// kOuterSum into a log of n chunks (chunk stride cs, row stride lanes)
	// at chunk offset off, then kBackRows and kGradLog on it.
	zs := randv(rng, K*nc*J*lanes, true)
	ds := randv(rng, K*nc*J*lanes, false)
	const off = 2
	n, cs := nc+off+1, logStride(J*J)
	G := randv(rng, n*cs, false)
	kOuterSum(G[off*cs:], cs, zs, ds, K, J, J, nc)
	for c := range nc {
		for j := range J {
			for i := range J {
				for q := range lanes {
					s := 0.0
					for it := range K {
						s += zs[it*nc*J*lanes+ix(J, c, j, q)] * ds[it*nc*J*lanes+ix(J, c, i, q)]
					}
					got := G[(off+c)*cs+(j*J+i)*lanes+q]
					if math.Abs(got-s) > 1e-12*(1+math.Abs(s)) {
						t.Fatalf("%s kOuterSum: chunk %d row %d lane %d = %v, want %v", name, c, j*J+i, q, got, s)
					}
				}
			}
		}
	}
	dv := randv(rng, nc*C*lanes, false)
	want = append([]float64(nil), dv...)
	kBackRows(dv, W, wb, C, J*J, G[off*cs:], cs, nc)
	for c := range nc {
		for k := range C {
			for q := range lanes {
				for r := range J * J {
					want[ix(C, c, k, q)] += W[wb+r*C+k] * G[(off+c)*cs+r*lanes+q]
				}
			}
		}
	}
	near(t, name+" kBackRows", dv, want)
	zcs := logStride(C)
	vz := randv(rng, n*zcs, false)
	gW := randv(rng, len(W), false)
	want = append([]float64(nil), gW...)
	kGradLog(gW, wb, C, J*J, G, cs, vz, zcs, n)
	for r := range J * J {
		for k := range C {
			for c := range n {
				for q := range lanes {
					want[wb+r*C+k] += G[c*cs+r*lanes+q] * vz[c*zcs+k*lanes+q]
				}
			}
		}
	}
	near(t, name+" kGradLog", gW, want)
	// kIter and kIterBack on one iteration (J outputs).
	Cs := randv(rng, nc*J*J*lanes, false)
	bs, Wo := randv(rng, J, false), randv(rng, J, false)
	bo := rng.NormFloat64()
	zn, dsig, lg, pre := make([]float64, nc*J*lanes), make([]float64, nc*J*lanes), make([]float64, nc*lanes), make([]float64, nc*J*lanes)
	kIter(zn, dsig, lg, pre, bs, Cs, z, Wo, bo, J, nc)
	wz, wd, wl := make([]float64, len(zn)), make([]float64, len(dsig)), make([]float64, len(lg))
	for c := range nc {
		for q := range lanes {
			o := bo
			for i := range J {
				p := bs[i]
				for j := range J {
					p += Cs[ix(J*J, c, j*J+i, q)] * z[ix(J, c, j, q)]
				}
				if p > 0 {
					wz[ix(J, c, i, q)] = 1
					o += Wo[i]
				}
				sg := 1 / (1 + math.Exp(-p))
				wd[ix(J, c, i, q)] = sg * (1 - sg)
			}
			wl[c*lanes+q] = o
		}
	}
	near(t, name+" kIter state", zn, wz)
	near(t, name+" kIter σ'", dsig, wd)
	near(t, name+" kIter logit", lg, wl)
	dzi := randv(rng, nc*J*lanes, false)
	dout := randv(rng, nc*lanes, false)
	accBs, accWo, accBo := randv(rng, J*lanes, false), randv(rng, J*lanes, false), randv(rng, lanes, false)
	wBs, wWo, wBo := append([]float64(nil), accBs...), append([]float64(nil), accWo...), append([]float64(nil), accBo...)
	wdz, wdp := make([]float64, len(dzi)), make([]float64, len(dzi))
	for c := range nc {
		for q := range lanes {
			dc := dout[c*lanes+q]
			wBo[q] += dc
			for i := range J {
				g := dzi[ix(J, c, i, q)] + dc*Wo[i]
				wWo[i*lanes+q] += dc * zn[ix(J, c, i, q)]
				p := g * dsig[ix(J, c, i, q)]
				wdp[ix(J, c, i, q)] = p
				wBs[i*lanes+q] += p
			}
			for j := range J {
				for i := range J {
					wdz[ix(J, c, j, q)] += Cs[ix(J*J, c, j*J+i, q)] * wdp[ix(J, c, i, q)]
				}
			}
		}
	}
	dpre := make([]float64, len(dzi))
	kIterBack(dzi, dpre, accBs, accWo, accBo, dout, zn, dsig, Wo, Cs, J, nc)
	near(t, name+" kIterBack dz", dzi, wdz)
	near(t, name+" kIterBack dpre", dpre, wdp)
	near(t, name+" kIterBack bs", accBs, wBs)
	near(t, name+" kIterBack Wo", accWo, wWo)
	near(t, name+" kIterBack bo", accBo, wBo)
	// kAddRows.
	acc := randv(rng, A*lanes, false)
	want = append([]float64(nil), acc...)
	kAddRows(acc, d, A, nc)
	for c := range nc {
		for r := range A * lanes {
			want[r] += d[c*A*lanes+r]
		}
	}
	near(t, name+" kAddRows", acc, want)
}

// TestBCEKernel checks kBCE against nn.BCEGrad: the loss to 1e-13
// relative, the derivatives to 1e-15, lanes of weight 0 contributing
// nothing; logits from −800 to 800.
func TestBCEKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, v := range kernelVariants() {
		v.set()
		const n = 4096
		o, y, w, d := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range o {
			switch i % 4 {
			case 0:
				o[i] = rng.NormFloat64()
			case 1:
				o[i] = 40 * (2*rng.Float64() - 1)
			case 2:
				o[i] = 800 * (2*rng.Float64() - 1)
			default:
				o[i] = 1e-9 * rng.NormFloat64()
			}
			y[i] = float64(rng.IntN(2))
			w[i] = float64(rng.IntN(4) % 3) // 0, 1 or 2
		}
		loss := kBCE(d, o, y, w)
		want := 0.0
		for i := range o {
			l, g := nn.BCEGrad(o[i], y[i])
			want += w[i] * l
			if math.Abs(d[i]-w[i]*g) > 1e-15 {
				t.Fatalf("%s: d[%d] = %v, want %v (o = %v)", v.name, i, d[i], w[i]*g, o[i])
			}
		}
		if math.Abs(loss-want) > 1e-13*want {
			t.Errorf("%s: loss %v, want %v", v.name, loss, want)
		}
	}
	kernelVariants()[0].set()
}

// BenchmarkKernels measures one input's kernels of a lock-step group of np
// strings (J state neurons, C = 5 as Dyck-2, K = 4): kForm, then per
// iteration kIter, and backward kIterBack per iteration, kOuterSum,
// kBackRows; GFLOP/s counts every lane's multiply-adds as 2.
func BenchmarkKernels(b *testing.B) {
	for _, v := range kernelVariants() {
		for _, J := range []int{8, 32} {
			for _, np := range []int{8, 32} {
				b.Run(fmt.Sprintf("%s/J%d/np%d", v.name, J, np), func(b *testing.B) {
					v.set()
					defer kernelVariants()[0].set()
					const C, K = 5, 4
					nc := np / lanes
					rng := rand.New(rand.NewPCG(1, 1))
					W := randv(rng, J*J*C, false)
					vv := randv(rng, nc*C*lanes, false)
					Cm := make([]float64, nc*J*J*lanes)
					zs := randv(rng, (K+1)*nc*J*lanes, true)
					dsig := make([]float64, K*nc*J*lanes)
					dpre := make([]float64, K*nc*J*lanes)
					lg, pre := make([]float64, nc*lanes), make([]float64, nc*J*lanes)
					bs, Wo, d := randv(rng, J, false), randv(rng, J, false), randv(rng, nc*lanes, false)
					acc, accB := make([]float64, J*lanes), make([]float64, lanes)
					dz, dv := make([]float64, nc*J*lanes), make([]float64, nc*C*lanes)
					G := make([]float64, nc*logStride(J*J))
					W8 := nc * J * lanes
					for b.Loop() {
						kForm(Cm, W, 0, C, J*J, vv, nc)
						for it := range K {
							kIter(zs[(it+1)*W8:(it+2)*W8], dsig[it*W8:(it+1)*W8], lg, pre, bs, Cm, zs[it*W8:(it+1)*W8], Wo, 0, J, nc)
						}
						for it := K - 1; it >= 0; it-- {
							kIterBack(dz, dpre[it*W8:(it+1)*W8], acc, acc, accB, d, zs[(it+1)*W8:(it+2)*W8], dsig[it*W8:(it+1)*W8], Wo, Cm, J, nc)
						}
						kOuterSum(G, logStride(J*J), zs, dpre, K, J, J, nc)
						kBackRows(dv, W, 0, C, J*J, G, logStride(J*J), nc)
					}
					flop := 2 * float64(np) * float64(J*J*C+3*K*J*J+J*J*C)
					b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}

// TestDsigmoid: the compiled σ' agrees with e/(1+e)², e = exp(−|v|), to
// 1e-12 relative over |v| ≤ 700 (and stays finite and tiny beyond); the
// σ(1 − σ) of the plain-Go and AVX2 paths (Net.Step's formula) to 1e-15
// absolute.
func TestDsigmoid(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	src := make([]float64, 8000)
	for i := range src {
		switch i % 4 {
		case 0:
			src[i] = rng.NormFloat64()
		case 1:
			src[i] = 40 * (2*rng.Float64() - 1)
		case 2:
			src[i] = 700 * (2*rng.Float64() - 1)
		default:
			src[i] = 1e-9 * rng.NormFloat64()
		}
	}
	src[0], src[1], src[2], src[3] = 0, 800, -1e300, math.Copysign(0, -1)
	for _, v := range kernelVariants() {
		v.set()
		dst := make([]float64, len(src))
		dsigmoid(dst, src)
		for i, x := range src {
			want := 0.0
			if math.Abs(x) <= 700 {
				want = math.Exp(-math.Abs(x)) / ((1 + math.Exp(-math.Abs(x))) * (1 + math.Exp(-math.Abs(x))))
			}
			got := dst[i]
			if math.Abs(x) > 700 {
				if !(got >= 0 && got < 1e-300) {
					t.Errorf("%s: σ'(%v) = %v", v.name, x, got)
				}
				continue
			}
			tol := 1e-12 * want
			if !accurateDsigmoid() { // σ(1−σ) rounds 1−σ
				tol += 1e-15
			}
			if math.Abs(got-want) > tol {
				t.Errorf("%s: σ'(%v) = %v, want %v", v.name, x, got, want)
			}
		}
	}
	kernelVariants()[0].set()
}
