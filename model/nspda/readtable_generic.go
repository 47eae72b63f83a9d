//go:build !goexperiment.simd || !amd64

package nspda

// sumRows sets out[i] = b[i] + Σ_{j ∈ active} T[j*n + i], n = len(out),
// adding the rows in the order of active: the Runner's sum (contract) over
// read-table rows.
func sumRows(out, b, T []float64, active []int) {
	n := len(out)
	i := 0
	for ; i+8 <= n; i += 8 {
		s0, s1, s2, s3, s4, s5, s6, s7 := b[i], b[i+1], b[i+2], b[i+3], b[i+4], b[i+5], b[i+6], b[i+7]
		for _, j := range active {
			row := (*[8]float64)(T[j*n+i : j*n+i+8])
			s0 += row[0]
			s1 += row[1]
			s2 += row[2]
			s3 += row[3]
			s4 += row[4]
			s5 += row[5]
			s6 += row[6]
			s7 += row[7]
		}
		out[i], out[i+1], out[i+2], out[i+3], out[i+4], out[i+5], out[i+6], out[i+7] = s0, s1, s2, s3, s4, s5, s6, s7
	}
	for ; i < n; i++ {
		s := b[i]
		for _, j := range active {
			s += T[j*n+i]
		}
		out[i] = s
	}
}

// sumState sets pre = b + Σ_{j ∈ active} rows of T (sumRows) and the binary
// state from it (threshold, z_i = 1 when pre_i > 0); it returns the indices
// on, in next's memory (capacity at least len(pre); not active's).
func sumState(next []int, z, pre, b, T []float64, active []int) []int {
	sumRows(pre, b, T, active)
	return threshold(next, z, pre)
}
