package train

import (
	"math"
	"math/rand/v2"

	"github.com/nspda/nspda/nn"
)

// UORO is unbiased online recurrent optimization (Tallec and Ollivier 2018;
// paper appendix, eqs. 10-12). It keeps a rank-one estimate s̃ θ̃ᵀ of the
// influence matrix ∂s/∂θ, starting from zero at each string. At each
// iteration, with ν a vector of independent random signs,
//
//	s̃' = (∂F/∂s) s̃          (one StepJVP)
//	θ̃' = νᵀ ∂F/∂θ             (one StepVJP)
//	ρ0 = sqrt(‖θ̃‖/(‖s̃'‖+ε)) + ε,   ρ1 = sqrt(‖θ̃'‖/(‖ν‖+ε)) + ε
//	s̃ ← ρ0 s̃' + ρ1 ν,   θ̃ ← θ̃/ρ0 + θ̃'/ρ1
//	∂L_i/∂θ ≈ (∂L_i/∂s · s̃) θ̃ + ∂L_i/∂θ|direct
//
// The estimate is unbiased: its mean over ν is the exact gradient. Cost per
// iteration: one JVP, one VJP and O(P). The signs ν come from Rng, which must
// be independent of the net's own randomness.
type UORO struct {
	forward
	Rng      *rand.Rand
	Epsilon  float64 // default 1e-7
	eps      float64
	sTil     []float64
	thTil    []float64
	thNew    []float64
	sNew, nu []float64
	ds       []float64
}

// Name is "uoro".
func (*UORO) Name() string { return "uoro" }

// SetRand makes rng the source of the signs ν (RandUser).
func (u *UORO) SetRand(rng *rand.Rand) { u.Rng = rng }

var _ RandUser = (*UORO)(nil)

// Gradient adds an unbiased estimate of the gradient into grad.
func (u *UORO) Gradient(net nn.Net, obj *Objective, ex Example, refine int, rng *rand.Rand, grad []float64) float64 {
	S, P := net.StateSize(), len(net.Params())
	u.eps = u.Epsilon
	if u.eps == 0 {
		u.eps = 1e-7
	}
	u.sTil, u.thTil, u.thNew = buf(u.sTil, S), buf(u.thTil, P), buf(u.thNew, P)
	u.sNew, u.nu, u.ds = buf(u.sNew, S), buf(u.nu, S), buf(u.ds, S)
	return u.sweep(u, net, obj, ex, refine, rng, grad)
}

// propagate updates the rank-one estimate s̃ θ̃ᵀ over the iteration in rec.
func (u *UORO) propagate(net nn.Net, rec any) {
	eps := u.eps
	net.StepJVP(rec, u.sTil, u.sNew)
	for i := range u.nu {
		u.nu[i] = 1
		if u.Rng.Uint64()&1 == 0 {
			u.nu[i] = -1
		}
	}
	nn.Zero(u.thNew)
	nn.Zero(u.ds)
	net.StepVJP(rec, u.nu, u.ds, u.thNew)
	rho0 := math.Sqrt(norm(u.thTil)/(norm(u.sNew)+eps)) + eps
	rho1 := math.Sqrt(norm(u.thNew)/(norm(u.nu)+eps)) + eps
	for i := range u.sTil {
		u.sTil[i] = rho0*u.sNew[i] + rho1*u.nu[i]
	}
	for i := range u.thTil {
		u.thTil[i] = u.thTil[i]/rho0 + u.thNew[i]/rho1
	}
}

// accumulate adds (gs·s̃) θ̃ into grad: the estimated gradient of a loss
// whose derivative with respect to the current state is gs.
func (u *UORO) accumulate(gs, grad []float64) {
	c := nn.Dot(gs, u.sTil)
	for i, v := range u.thTil {
		grad[i] += c * v
	}
}

func norm(v []float64) float64 { return math.Sqrt(nn.Dot(v, v)) }
