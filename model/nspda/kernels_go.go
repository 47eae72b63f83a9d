package nspda

import "github.com/nspda/nspda/nn"

// The lock-step kernels in plain Go: the default build's kernels
// (kernels_generic.go), and the SIMD build's where a CPU or a shape has no
// vector variant. Layouts: kernels_generic.go.

// dsigmoidGo is dsigmoid with nn.Sigmoid, as Net.Step computes it.
func dsigmoidGo(dst, src []float64) {
	dst = dst[:len(src)]
	for q, v := range src {
		sg := nn.Sigmoid(v)
		dst[q] = sg * (1 - sg)
	}
}

// kOutGradGo is kOutGrad in plain Go.
func kOutGradGo(dz, accWo, accBo, d, zn, Wo []float64, J, nc int) {
	for c := range nc {
		dc := (*[lanes]float64)(d[c*lanes:])
		for j, w := range Wo[:J] {
			row := (*[lanes]float64)(dz[(c*J+j)*lanes:])
			zr := (*[lanes]float64)(zn[(c*J+j)*lanes:])
			acc := (*[lanes]float64)(accWo[j*lanes:])
			for q := range lanes {
				row[q] += dc[q] * w
				acc[q] += dc[q] * zr[q]
			}
		}
		bo := (*[lanes]float64)(accBo)
		for q := range lanes {
			bo[q] += dc[q]
		}
	}
}

// kGradLogGo is kGradLog in plain Go.
func kGradLogGo(gW []float64, wb, C, nout int, d []float64, dcs int, z []float64, zcs, n int) {
	for i := range nout {
		for k := range C {
			s := 0.0
			for c := range n {
				di := (*[lanes]float64)(d[c*dcs+i*lanes:])
				zk := (*[lanes]float64)(z[c*zcs+k*lanes:])
				for q := range lanes {
					s += di[q] * zk[q]
				}
			}
			gW[wb+i*C+k] += s
		}
	}
}

// kAddRowsGo is kAddRows in plain Go.
func kAddRowsGo(acc, d []float64, rows, nc int) {
	for c := range nc {
		src := d[c*rows*lanes : (c+1)*rows*lanes]
		for q, v := range src {
			acc[q] += v
		}
	}
}

// kStepOutGo is kStepOut in plain Go.
func kStepOutGo(zn, dsig, lg, pre, Wo []float64, bo float64, J, nc int) {
	dsigmoidGo(dsig[:J*nc*lanes], pre[:J*nc*lanes])
	for c := range nc {
		o := (*[lanes]float64)(lg[c*lanes:])
		for q := range o {
			o[q] = bo
		}
		for j, w := range Wo[:J] {
			p := (*[lanes]float64)(pre[(c*J+j)*lanes:])
			z := (*[lanes]float64)(zn[(c*J+j)*lanes:])
			for q := range lanes {
				z[q] = 0
				if p[q] > 0 {
					z[q] = 1
				}
				o[q] += w * z[q]
			}
		}
	}
}

// kIterGo is kIter in plain Go.
func kIterGo(zn, dsig, lg, pre, bias, Cm, z, Wo []float64, bo float64, J, nc int) {
	kApplyGo(pre, bias, Cm, z, J, J, nc)
	kStepOutGo(zn, dsig, lg, pre, Wo, bo, J, nc)
}

// kIterBackGo is kIterBack in plain Go.
func kIterBackGo(dz, dpre, accBs, accWo, accBo, d, zn, dsig, Wo, Cm []float64, J, nc int) {
	kOutGradGo(dz, accWo, accBo, d, zn, Wo, J, nc)
	kDpreGo(dpre, accBs, dz, dsig, J, nc)
	clear(dz[:J*nc*lanes])
	kApplyTGo(dz, Cm, dpre, J, J, nc)
}

// kDpreGo is kDpre in plain Go.
func kDpreGo(dpre, acc, dz, dsig []float64, J, nc int) {
	for q, d := range dz[:J*nc*lanes] {
		dpre[q] = d * dsig[q]
	}
	kAddRowsGo(acc, dpre, J, nc)
}

// kFormGo is kForm in plain Go.
func kFormGo(Cm, W []float64, wb, C, nout int, v []float64, nc int) {
	w := W[wb : wb+nout*C]
	for c := range nc {
		vc := v[c*C*lanes : (c+1)*C*lanes]
		for i := range nout {
			o := (*[lanes]float64)(Cm[(c*nout+i)*lanes:])
			clear(o[:])
			for k, wk := range w[i*C : (i+1)*C] {
				vk := (*[lanes]float64)(vc[k*lanes:])
				for q := range lanes {
					o[q] += wk * vk[q]
				}
			}
		}
	}
}

// kApplyGo is kApply in plain Go.
func kApplyGo(out, bias, Cm, z []float64, J, nout, nc int) {
	fillBias(out[:nout*nc*lanes], bias[:nout])
	for c := range nc {
		o := out[c*nout*lanes : (c+1)*nout*lanes]
		zc := z[c*J*lanes : (c+1)*J*lanes]
		m := Cm[c*J*nout*lanes : (c+1)*J*nout*lanes]
		for j := range J {
			zj := (*[lanes]float64)(zc[j*lanes:])
			for i := range nout {
				oi := (*[lanes]float64)(o[i*lanes:])
				mr := (*[lanes]float64)(m[(j*nout+i)*lanes:])
				for q := range lanes {
					oi[q] += mr[q] * zj[q]
				}
			}
		}
	}
}

// kApplyTGo is kApplyT in plain Go.
func kApplyTGo(dz, Cm, d []float64, J, nout, nc int) {
	for c := range nc {
		g := dz[c*J*lanes : (c+1)*J*lanes]
		dc := d[c*nout*lanes : (c+1)*nout*lanes]
		m := Cm[c*J*nout*lanes : (c+1)*J*nout*lanes]
		for j := range J {
			gj := (*[lanes]float64)(g[j*lanes:])
			for i := range nout {
				di := (*[lanes]float64)(dc[i*lanes:])
				mr := (*[lanes]float64)(m[(j*nout+i)*lanes:])
				for q := range lanes {
					gj[q] += mr[q] * di[q]
				}
			}
		}
	}
}

// kOuterSumGo is kOuterSum in plain Go.
func kOuterSumGo(G []float64, cs int, z, d []float64, K, J, nout, nc int) {
	zs, ds := J*nc*lanes, nout*nc*lanes
	for c := range nc {
		for j := range J {
			for i := range nout {
				g := (*[lanes]float64)(G[c*cs+(j*nout+i)*lanes:])
				clear(g[:])
				for it := range K {
					zj := (*[lanes]float64)(z[it*zs+(c*J+j)*lanes:])
					di := (*[lanes]float64)(d[it*ds+(c*nout+i)*lanes:])
					for q := range lanes {
						g[q] += zj[q] * di[q]
					}
				}
			}
		}
	}
}

// kBackRowsGo is kBackRows in plain Go.
func kBackRowsGo(dv, W []float64, wb, C, nout int, G []float64, cs, nc int) {
	for c := range nc {
		for k := range C {
			a := (*[lanes]float64)(dv[(c*C+k)*lanes:])
			for i := range nout {
				w := W[wb+i*C+k]
				g := (*[lanes]float64)(G[c*cs+i*lanes:])
				for q := range lanes {
					a[q] += w * g[q]
				}
			}
		}
	}
}

// kBCEGo is kBCE in plain Go.
func kBCEGo(d, o, y, w []float64) float64 {
	loss := 0.0
	for q, v := range o {
		l, g := nn.BCEGrad(v, y[q])
		d[q] = w[q] * g
		loss += w[q] * l
	}
	return loss
}
