//go:build goexperiment.simd && amd64

package nspda

import "simd/archsimd"

// The read-table kernels on vectors over the output neurons: each output
// gets the same additions in the same order as in plain Go (and no
// multiplications), so the results are the same bits.

// sumRows sets out[i] = b[i] + Σ_{j ∈ active} T[j*n + i], n = len(out),
// adding the rows in the order of active: the Runner's sum (contract) over
// read-table rows.
func sumRows(out, b, T []float64, active []int) {
	n := len(out)
	i := 0
	if avx512 {
		for ; i+8 <= n; i += 8 {
			sum8(b, T, active, n, i).Store((*[8]float64)(out[i : i+8]))
		}
	}
	for ; i+4 <= n; i += 4 {
		sum4(b, T, active, n, i).Store((*[4]float64)(out[i : i+4]))
	}
	for ; i < n; i++ {
		out[i] = sum1(b, T, active, n, i)
	}
}

// sumState sets pre = b + Σ_{j ∈ active} rows of T (sumRows) and the binary
// state from it (threshold, z_i = 1 when pre_i > 0); it returns the indices
// on, in next's memory (capacity at least len(pre); not active's). The
// state is decided from the sums in registers: reading pre back right after
// the vector stores would stall.
func sumState(next []int, z, pre, b, T []float64, active []int) []int {
	n := len(pre)
	next, z = next[:n], z[:n]
	on, i := 0, 0
	if avx512 {
		zero, one := bcast8(0), bcast8(1)
		for ; i+32 <= n; i += 32 {
			a0, a1, a2, a3 := sum32(b, T, active, n, i)
			for q, a := range [4]archsimd.Float64x8{a0, a1, a2, a3} {
				k := i + 8*q
				a.Store((*[8]float64)(pre[k : k+8]))
				m := a.Greater(zero)
				one.Masked(m).Store((*[8]float64)(z[k : k+8]))
				on = appendOn(next, on, k, uint(m.ToBits()), 8)
			}
		}
		for ; i+8 <= n; i += 8 {
			a := sum8(b, T, active, n, i)
			a.Store((*[8]float64)(pre[i : i+8]))
			m := a.Greater(zero)
			one.Masked(m).Store((*[8]float64)(z[i : i+8]))
			on = appendOn(next, on, i, uint(m.ToBits()), 8)
		}
	}
	for ; i+4 <= n; i += 4 {
		a := sum4(b, T, active, n, i)
		a.Store((*[4]float64)(pre[i : i+4]))
		bits := uint(a.Greater(bcast4(0)).ToBits())
		for q := range 4 {
			z[i+q] = float64(bits >> q & 1)
		}
		on = appendOn(next, on, i, bits, 4)
	}
	for ; i < n; i++ {
		v := sum1(b, T, active, n, i)
		pre[i] = v
		bit := uint(0)
		if v > 0 {
			bit = 1
		}
		z[i] = float64(bit)
		on = appendOn(next, on, i, bit, 1)
	}
	return next[:on]
}

// appendOn appends to next[:on] the indices i+q, q < w, whose bit q of bits
// is set, and returns the new length; it writes every index and keeps those
// that are on (no branch on the data).
func appendOn(next []int, on, i int, bits uint, w int) int {
	for q := range w {
		next[on] = i + q
		on += int(bits >> q & 1)
	}
	return on
}

// sum32 returns b + Σ_{j ∈ active} T[j*n + i : j*n + i + 32] in four
// vectors.
func sum32(b, T []float64, active []int, n, i int) (a0, a1, a2, a3 archsimd.Float64x8) {
	a0, a1, a2, a3 = load8(b[i:i+8]), load8(b[i+8:i+16]), load8(b[i+16:i+24]), load8(b[i+24:i+32])
	for _, j := range active {
		row := T[j*n+i : j*n+i+32]
		a0 = a0.Add(load8(row[0:8]))
		a1 = a1.Add(load8(row[8:16]))
		a2 = a2.Add(load8(row[16:24]))
		a3 = a3.Add(load8(row[24:32]))
	}
	return a0, a1, a2, a3
}

// sum8 returns b + Σ_{j ∈ active} T[j*n + i : j*n + i + 8].
func sum8(b, T []float64, active []int, n, i int) archsimd.Float64x8 {
	a := load8(b[i : i+8])
	for _, j := range active {
		a = a.Add(load8(T[j*n+i : j*n+i+8]))
	}
	return a
}

// sum4 returns b + Σ_{j ∈ active} T[j*n + i : j*n + i + 4].
func sum4(b, T []float64, active []int, n, i int) archsimd.Float64x4 {
	a := load4(b[i : i+4])
	for _, j := range active {
		a = a.Add(load4(T[j*n+i : j*n+i+4]))
	}
	return a
}

// sum1 returns b[i] + Σ_{j ∈ active} T[j*n + i].
func sum1(b, T []float64, active []int, n, i int) float64 {
	s := b[i]
	for _, j := range active {
		s += T[j*n+i]
	}
	return s
}
