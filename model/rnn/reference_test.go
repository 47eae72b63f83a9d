package rnn

import (
	"math"
	"slices"
	"testing"

	"github.com/nspda/nspda/nn"
)

// refStep is an independent, naive forward pass written straight from the
// equations of baselines.md §3–5: dense products with the one-hot input
// vector x, no lookups, no shared kernels.
func refStep(m nn.Model, s []float64, l int) (s2 []float64, o float64) {
	b := baseOf(m)
	y, p := b.lay, b.p
	X, H, G := y.X, y.H, y.G()
	x := make([]float64, X)
	x[l] = 1
	sig := nn.Sigmoid
	// Wx_i = Σ_k W[i,k] x_k and (U v)_i = Σ_j U[i,j] v_j, for unit i of G.
	Wx := func(i int) float64 {
		t := 0.0
		for k := range x {
			t += p.W[k*G+i] * x[k]
		}
		return t
	}
	Uv := func(i int, v []float64) float64 {
		t := 0.0
		for j := range v {
			t += p.U[i*H+j] * v[j]
		}
		return t
	}
	// The additive block or the general MI block of §3.
	block := func(i int, v []float64) float64 {
		wx, uv := Wx(i), Uv(i, v)
		if y.MI {
			return p.Alpha[i]*wx*uv + p.Beta1[i]*uv + p.Beta2[i]*wx + p.B[i]
		}
		return wx + uv + p.B[i]
	}
	h := s[:H]
	switch y.cell {
	case cellElman:
		s2 = make([]float64, H)
		for i := range s2 {
			s2[i] = math.Tanh(block(i, h))
		}
	case cellLSTM:
		c := s[H:]
		s2 = make([]float64, 2*H)
		peep := func(q, i int, v float64) float64 {
			if !y.Peep {
				return 0
			}
			return p.P[q*H+i] * v
		}
		for i := 0; i < H; i++ {
			in := sig(block(i, h) + peep(0, i, c[i]))
			f := sig(block(H+i, h) + peep(1, i, c[i]))
			g := math.Tanh(block(2*H+i, h))
			cn := f*c[i] + in*g
			out := sig(block(3*H+i, h) + peep(2, i, cn))
			s2[i], s2[H+i] = out*math.Tanh(cn), cn
		}
	case cellGRU:
		z, r, rh := make([]float64, H), make([]float64, H), make([]float64, H)
		for i := range z {
			z[i], r[i] = sig(block(i, h)), sig(block(H+i, h))
			rh[i] = r[i] * h[i]
		}
		s2 = make([]float64, H)
		for i := range s2 {
			n := math.Tanh(block(2*H+i, rh))
			s2[i] = (1-z[i])*h[i] + z[i]*n
		}
	case cellSecond:
		so := m.(*SecondOrder)
		s2 = make([]float64, H)
		for i := range s2 {
			a := *so.Bias(i)
			for j := 0; j < H; j++ {
				for k := 0; k < X; k++ {
					a += *so.Weight(i, j, k) * s[j] * x[k]
				}
			}
			s2[i] = sig(a)
		}
	}
	o = p.C[0]
	for i := 0; i < H; i++ {
		o += p.V[i] * s2[i]
	}
	return s2, o
}

func TestReference(t *testing.T) {
	for _, name := range names {
		for _, hidden := range []int{3, 20} {
			m := newModel(t, name, hidden, 11)
			jitter(m, 0.4, 11)
			n := m.StateSize()
			s, s2 := make([]float64, n), make([]float64, n)
			m.Start(s, nil)
			rec := m.NewRecord()
			for step, l := range []int{0, 0, 1, 0, 1, 1, 2} {
				want, wo := refStep(m, s, l)
				o := m.Step(rec, s, s2, l, true, true)
				for i := range want {
					if math.Abs(want[i]-s2[i]) > 1e-12 || math.Abs(wo-o) > 1e-12 {
						t.Fatalf("%s (hidden %d) step %d: state %v logit %v, reference %v %v", name, hidden, step, s2, o, want, wo)
					}
				}
				s, s2 = s2, s
			}
		}
	}
}

// TestReductions checks the variants against their base cells: MI with
// α = 0, β₁ = β₂ = 1 is the additive block, and zero peepholes are none.
func TestReductions(t *testing.T) {
	for _, pair := range [][2]string{{"mi-rnn", "elman"}, {"mi-lstm", "lstm"}, {"mi-gru", "gru"}, {"lstm-peephole", "lstm"}} {
		variant, plain := newModel(t, pair[0], 4, 13), newModel(t, pair[1], 4, 13)
		jitter(plain, 0.5, 13)
		vb, pb := baseOf(variant).p, baseOf(plain).p
		copy(vb.W, pb.W)
		copy(vb.U, pb.U)
		copy(vb.B, pb.B)
		copy(vb.V, pb.V)
		copy(vb.C, pb.C)
		for i := range vb.Alpha {
			vb.Alpha[i], vb.Beta1[i], vb.Beta2[i] = 0, 1, 1
		}
		clear(vb.P)
		syms := []int{0, 1, 1, 0}
		if a, b := logits(variant, syms, 2), logits(plain, syms, 2); !slices.Equal(a, b) {
			t.Errorf("%s reduced gives %v, %s gives %v", pair[0], a, pair[1], b)
		}
	}
}
