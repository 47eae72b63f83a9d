package rnn

// The pre-activation block of a first-order cell, for the pre-activation
// units lo..lo+len(a)-1 of G. With x_t one-hot on input l, W x_t is the
// column W[l] (stored contiguously), and uh = U h has been computed by the
// caller (for the GRU candidate, uh = U_h (r ⊙ h)).
//
//	additive:  a = W x + U h + b                                   (baselines.md §4)
//	general MI: a = α ⊙ Wx ⊙ Uh + β₁ ⊙ Uh + β₂ ⊙ Wx + b             (baselines.md §3)

// integrate sets a = block(W[l], uh) over units lo..lo+len(a)-1.
func (b *base) integrate(a, uh []float64, l, lo int) {
	n, G := len(a), b.lay.G()
	wx := b.p.W[l*G+lo : l*G+lo+n]
	bias := b.p.B[lo : lo+n]
	uh = uh[:n]
	if !b.lay.MI {
		for i := range a {
			a[i] = wx[i] + uh[i] + bias[i]
		}
		return
	}
	al, b1, b2 := b.p.Alpha[lo:lo+n], b.p.Beta1[lo:lo+n], b.p.Beta2[lo:lo+n]
	for i := range a {
		a[i] = al[i]*wx[i]*uh[i] + b1[i]*uh[i] + b2[i]*wx[i] + bias[i]
	}
}

// integrateVJP back-propagates da through the block: it adds the gradients
// of W[l], b (and α, β₁, β₂) into g and sets duh = (∂a/∂uh) da, which is
// diagonal. duh may be da itself.
//
//	additive: ∂a/∂Wx = ∂a/∂Uh = 1
//	MI:       ∂a/∂Wx = α ⊙ Uh + β₂,  ∂a/∂Uh = α ⊙ Wx + β₁,
//	          ∂a/∂α = Wx ⊙ Uh,  ∂a/∂β₁ = Uh,  ∂a/∂β₂ = Wx
func (b *base) integrateVJP(g *views, da, uh, duh []float64, l, lo int) {
	n, G := len(da), b.lay.G()
	gw := g.W[l*G+lo : l*G+lo+n]
	gb := g.B[lo : lo+n]
	uh, duh = uh[:n], duh[:n]
	if !b.lay.MI {
		for i, d := range da {
			gw[i] += d
			gb[i] += d
			duh[i] = d
		}
		return
	}
	wx := b.p.W[l*G+lo : l*G+lo+n]
	al, b1, b2 := b.p.Alpha[lo:lo+n], b.p.Beta1[lo:lo+n], b.p.Beta2[lo:lo+n]
	ga, gb1, gb2 := g.Alpha[lo:lo+n], g.Beta1[lo:lo+n], g.Beta2[lo:lo+n]
	for i, d := range da {
		gw[i] += d * (al[i]*uh[i] + b2[i])
		gb[i] += d
		ga[i] += d * wx[i] * uh[i]
		gb1[i] += d * uh[i]
		gb2[i] += d * wx[i]
		duh[i] = d * (al[i]*wx[i] + b1[i])
	}
}

// integrateJVP maps a tangent of uh to the tangent of a, in place:
// da = (∂a/∂uh) duh (1 additive, α ⊙ Wx + β₁ with MI).
func (b *base) integrateJVP(d []float64, l, lo int) {
	if !b.lay.MI {
		return
	}
	n, G := len(d), b.lay.G()
	wx := b.p.W[l*G+lo : l*G+lo+n]
	al, b1 := b.p.Alpha[lo:lo+n], b.p.Beta1[lo:lo+n]
	for i := range d {
		d[i] *= al[i]*wx[i] + b1[i]
	}
}
