package nspda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// kernelCase returns random operands for the kernels: W of a J-output
// contraction at input 1 (L = 4), zr and dout for a group of np lanes.
func kernelCase(J, np int, seed uint64) (W, zr, dout []float64, wb, js, R int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	R = 5
	W = make([]float64, 5*J*J*R)
	for i := range W {
		W[i] = rng.NormFloat64()
	}
	zr, dout = make([]float64, J*R*np), make([]float64, J*np)
	for i := range zr {
		zr[i] = rng.Float64()
	}
	for i := range dout {
		dout[i] = rng.NormFloat64()
	}
	return W, zr, dout, 1 * J * J * R, J * R, R
}

// TestKernels checks the compiled kernels (plain Go or SIMD, and with
// GOEXPERIMENT=simd both the AVX-512 and the AVX2 variants) against
// straightforward loops, to 1e-12 relative.
func TestKernels(t *testing.T) {
	for _, J := range []int{1, 3, 8, 13, 32} {
		for _, np := range []int{8, 16, 32} {
			W, zr, dout, wb, js, R := kernelCase(J, np, uint64(J*np))
			nc := np / lanes
			at := func(rows, row, m int) int { return (m/lanes*rows+row)*lanes + m%lanes }
			wantF := make([]float64, J*np)
			wantB := make([]float64, J*R*np)
			wantG := make([]float64, len(W))
			for i := range J {
				for j := range J {
					for k := range R {
						w := W[wb+j*js+i*R+k]
						for m := range np {
							z, d := zr[at(J*R, j*R+k, m)], dout[at(J, i, m)]
							wantF[at(J, i, m)] += w * z
							wantB[at(J*R, j*R+k, m)] += w * d
							wantG[wb+j*js+i*R+k] += d * z
						}
					}
				}
			}
			for _, v := range kernelVariants() {
				v.set()
				gotF := make([]float64, J*np)
				kFwd(gotF, W, wb, js, R, J, J, zr, nc)
				gotB := make([]float64, J*R*np)
				kBack(gotB, W, wb, js, R, J, J, dout, nc)
				gotG := make([]float64, len(W))
				kGrad(gotG, wb, js, R, J, J, dout, zr, nc)
				for name, p := range map[string][2][]float64{"kFwd": {gotF, wantF}, "kBack": {gotB, wantB}, "kGrad": {gotG, wantG}} {
					for i := range p[0] {
						if d := math.Abs(p[0][i] - p[1][i]); d > 1e-12*(1+math.Abs(p[1][i])) {
							t.Fatalf("%s %s J=%d np=%d: [%d] = %v, want %v", v.name, name, J, np, i, p[0][i], p[1][i])
						}
					}
				}
			}
			kernelVariants()[0].set()
		}
	}
}

func BenchmarkKernels(b *testing.B) {
	for _, v := range kernelVariants() {
		for _, J := range []int{8, 32} {
			for _, np := range []int{8, 32} {
				W, zr, dout, wb, js, R := kernelCase(J, np, 1)
				out, dzr, gW := make([]float64, J*np), make([]float64, J*R*np), make([]float64, len(W))
				nc := np / lanes
				b.Run(fmt.Sprintf("%s/J%d/np%d", v.name, J, np), func(b *testing.B) {
					v.set()
					defer kernelVariants()[0].set()
					for b.Loop() {
						kFwd(out, W, wb, js, R, J, J, zr, nc)
						kBack(dzr, W, wb, js, R, J, J, dout, nc)
						kGrad(gW, wb, js, R, J, J, dout, zr, nc)
					}
					b.ReportMetric(float64(3*J*J*R*np)/b.Elapsed().Seconds()*float64(b.N)/1e9*2, "GFLOP/s")
				})
			}
		}
	}
}

// BenchmarkKGrad measures kGrad alone on the chunk counts it sees in
// training: a symbol's 36 chunks of a lock-step backward pass (288 lanes),
// at J = 8 and 32 (R = 5, as Dyck-2).
func BenchmarkKGrad(b *testing.B) {
	for _, v := range kernelVariants() {
		for _, J := range []int{8, 32} {
			const np = 288
			W, zr, dout, wb, js, R := kernelCase(J, np, 1)
			gW := make([]float64, len(W))
			b.Run(fmt.Sprintf("%s/J%d", v.name, J), func(b *testing.B) {
				v.set()
				defer kernelVariants()[0].set()
				for b.Loop() {
					kGrad(gW, wb, js, R, J, J, dout, zr, np/lanes)
				}
				b.ReportMetric(float64(2*J*J*R*np)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
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
