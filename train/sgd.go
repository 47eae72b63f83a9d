package train

import (
	"fmt"
	"math/rand/v2"
)

// Paper settings (Sec. 5): SGD, initial rate 0.1005000321, element-wise
// gradient clipping at 13.
const (
	DefaultLR   = 0.1005000321
	DefaultClip = 13
)

// Schedule gives the learning rate of each epoch.
//
// The paper uses "the stochastic learning rate annealing scheme" of Ororbia
// et al. (2019) without defining it, and we could not find its definition
// (docs/design.md). Ours follows the suggestion in baselines.md section 7.2:
// in stochastic mode the rate of epoch e (from 0) is
//
//	η_e = η_0 · u_e / (1 + e/τ),   u_e ~ U(0.5, 1),
//
// a harmonic decay with a random factor redrawn every epoch; in fixed mode
// (2-IL's second stage) it is η_0, or with FixedAnnealed the mean of the
// stochastic rate at the epoch the fixed phases began (Fixed).
type Schedule struct {
	LR0 float64 // η_0
	Tau float64 // decay time in epochs (default 100)
	// FixedAnnealed: fixed phases keep the rate annealing had reached
	// rather than returning to η_0 (Algorithm 1 says "a fixed learning
	// rate" without saying which).
	FixedAnnealed bool
}

// Fixed returns the fixed rate of phases that began at epoch from (counted
// from 0): η_0, or with FixedAnnealed η_0 · 3/4 / (1 + from/τ), the mean of
// the stochastic rate at that epoch.
func (s Schedule) Fixed(from int) float64 {
	if !s.FixedAnnealed {
		return s.LR0
	}
	return s.LR0 * 0.75 / (1 + float64(from)/s.tau())
}

func (s Schedule) tau() float64 {
	if s.Tau == 0 {
		return 100
	}
	return s.Tau
}

// Rate returns the stochastic rate η_e, drawing u_e from rng.
func (s Schedule) Rate(epoch int, rng *rand.Rand) float64 {
	u := 0.5 + 0.5*rng.Float64()
	return s.LR0 * u / (1 + float64(epoch)/s.tau())
}

// SGD applies θ ← θ − η·clip(g) with element-wise clipping to ±Clip, and
// refuses a non-finite gradient or a step that makes a weight non-finite.
func SGD(params, grad []float64, lr, clip float64) error {
	for i, g := range grad {
		switch {
		case g-g != 0: // NaN or ±Inf
			return fmt.Errorf("gradient of parameter %d is %v", i, g)
		case g > clip:
			g = clip
		case g < -clip:
			g = -clip
		}
		p := params[i] - lr*g
		if p-p != 0 { // ±Inf or NaN
			return fmt.Errorf("parameter %d became %v", i, p)
		}
		params[i] = p
	}
	return nil
}
