package nn

// Helpers for models that keep every parameter in one flat slice and use
// named views into it (or into a gradient laid out like it).

// Cut points each of views, in order, at the next sizes[i] elements of buf,
// with the capacity clipped so that no view reaches into the next. buf must
// hold at least the sum of sizes. It does not allocate, so derivatives can
// cut their gradient argument with it.
func Cut(buf []float64, sizes []int, views ...*[]float64) {
	if len(views) != len(sizes) {
		panic("nn.Cut: one size per view")
	}
	for i, v := range views {
		n := sizes[i]
		*v = buf[:n:n]
		buf = buf[n:]
	}
}

// Sum returns the sum of sizes: the length of a flat vector Cut cuts into
// views of those sizes.
func Sum(sizes []int) int {
	n := 0
	for _, s := range sizes {
		n += s
	}
	return n
}

// Axpy adds a·x into y (y at least as long as x).
func Axpy(y []float64, a float64, x []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += a * v
	}
}

// ReadoutVJP is the derivative of a linear readout o = w·h + b: it adds
// do·w into dh, do·h into gw and do into gb[0].
func ReadoutVJP(do float64, w, h, dh, gw, gb []float64) {
	Axpy(dh, do, w)
	Axpy(gw, do, h)
	gb[0] += do
}
