package nnpda

// NoiseMatrices lists the controller's tensors for the adaptive noise
// regularizer (train.Noise, train.Tensored) in the NSPDA's convention: Ws as
// J·J matrices (to-neuron i outer, from-neuron j inner) and Wa as J matrices
// (the action neuron from neuron j), each matrix the indices in Params of its
// R×X weights (third order: read k outer, input l inner) or V = R+X weights
// (second order). Biases and the readout are not listed.
func (m *Model) NoiseMatrices() [][][]int {
	J := m.cfg.Hidden
	return [][][]int{m.matrices(J, 0), m.matrices(1, len(m.Ws)+len(m.Bs))}
}

// matrices lists the out·J matrices of the tensor with out output neurons
// (J for Ws, 1 for Wa) that starts at offset in Params, whose layout is
// (model.go's Weights)
//
//	third order:   [((l·out + i)·J + j)·R + k]
//	second order:  [(i·J + j)·V + m]
func (m *Model) matrices(out, offset int) [][]int {
	J, C, X := m.cfg.Hidden, m.c, m.x()
	mats := make([][]int, 0, out*J)
	for i := range out {
		for j := range J {
			var idx []int
			if m.cfg.Order == 2 {
				idx = make([]int, 0, C)
				for k := range C {
					idx = append(idx, offset+(i*J+j)*C+k)
				}
			} else {
				idx = make([]int, 0, C*X)
				for k := range C {
					for l := range X {
						idx = append(idx, offset+((l*out+i)*J+j)*C+k)
					}
				}
			}
			mats = append(mats, idx)
		}
	}
	return mats
}
