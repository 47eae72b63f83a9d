package rnn

// NoiseMatrices lists W for the adaptive noise regularizer (train.Noise,
// train.Tensored) in the NSPDA's convention: J·J matrices (to-neuron i
// outer, from-neuron j inner), each the indices in Params of the X weights
// W[k,i,j] over the inputs k. Biases and the readout are not listed.
func (m *SecondOrder) NoiseMatrices() [][][]int {
	J, X := m.lay.H, m.lay.X
	mats := make([][]int, 0, J*J)
	for i := range J {
		for j := range J {
			idx := make([]int, X)
			for k := range idx {
				idx[k] = (k*J+i)*J + j // W is first in Params (views)
			}
			mats = append(mats, idx)
		}
	}
	return [][][]int{mats}
}
