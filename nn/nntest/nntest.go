// Package nntest checks implementations of nn.Net: a reference
// back-propagation through time over StepVJP and OutVJP, compared with central
// finite differences of the forward loss, and adjoint (dot-product) tests
// between StepJVP and StepVJP.
package nntest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/nspda/nspda/nn"
)

// Case is one string to check a net on.
type Case struct {
	Syms   []int   // symbol indices; the end marker is appended
	Label  float64 // 0 or 1
	Refine int     // iterations per symbol (≥ 1)
	Seed   uint64  // seed of the training-mode randomness (0: evaluation mode)
}

func (c Case) rng() *rand.Rand {
	if c.Seed == 0 {
		return nil
	}
	return rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15))
}

func (c Case) inputs(net nn.Net) []int {
	in := append([]int(nil), c.Syms...)
	return append(in, net.InputSize()-1)
}

// Loss runs the forward pass and returns Σ over iterations of BCE(o, label).
func Loss(net nn.Net, c Case) float64 {
	n := net.StateSize()
	s, s2 := make([]float64, n), make([]float64, n)
	rec := net.NewRecord()
	net.Start(s, c.rng())
	loss := 0.0
	for _, l := range c.inputs(net) {
		for it := 0; it < c.Refine; it++ {
			o := net.Step(rec, s, s2, l, it == 0, it == c.Refine-1)
			loss += nn.BCE(o, c.Label)
			s, s2 = s2, s
		}
	}
	return loss
}

// Gradient computes the loss and adds its gradient into grad by a reference
// BPTT: a forward pass keeping every record, then StepVJP and OutVJP in
// reverse order.
func Gradient(net nn.Net, c Case, grad []float64) float64 {
	n := net.StateSize()
	s := make([]float64, n)
	net.Start(s, c.rng())
	var recs []any
	var outs []float64
	loss := 0.0
	for _, l := range c.inputs(net) {
		for it := 0; it < c.Refine; it++ {
			rec := net.NewRecord()
			s2 := make([]float64, n)
			o := net.Step(rec, s, s2, l, it == 0, it == c.Refine-1)
			loss += nn.BCE(o, c.Label)
			recs, outs = append(recs, rec), append(outs, o)
			s = s2
		}
	}
	ds2, ds := make([]float64, n), make([]float64, n)
	for i := len(recs) - 1; i >= 0; i-- {
		net.OutVJP(recs[i], nn.Sigmoid(outs[i])-c.Label, ds2, grad)
		nn.Zero(ds)
		net.StepVJP(recs[i], ds2, ds, grad)
		ds, ds2 = ds2, ds
	}
	return loss
}

// CheckGradient compares Gradient with central finite differences of Loss
// over every parameter and fails t if any component differs by more than tol
// relative to max(1, |g|). Use it only for nets whose forward pass is smooth
// in the parameters around the point checked.
func CheckGradient(t testing.TB, net nn.Net, c Case, tol float64) {
	t.Helper()
	p := net.Params()
	got := make([]float64, len(p))
	Gradient(net, c, got)
	orig := append([]float64(nil), p...)
	want := fd.Gradient(nil, func(x []float64) float64 {
		copy(p, x)
		return Loss(net, c)
	}, orig, &fd.Settings{Formula: fd.Central, Step: 1e-6})
	copy(p, orig)
	worst, at := 0.0, -1
	for i := range got {
		if e := math.Abs(got[i]-want[i]) / math.Max(1, math.Abs(want[i])); e > worst {
			worst, at = e, i
		}
	}
	if worst > tol {
		t.Errorf("gradient differs from finite differences: parameter %d: analytic %.10g, numeric %.10g (relative error %.3g > %.3g)", at, got[at], want[at], worst, tol)
	}
}

// CheckAdjoint runs a string and, at every iteration, checks that StepJVP and
// StepVJP are adjoint: ⟨u, J v⟩ = ⟨Jᵀ u, v⟩ for random u and v.
func CheckAdjoint(t testing.TB, net nn.Net, c Case, tol float64) {
	t.Helper()
	n := net.StateSize()
	rng := rand.New(rand.NewPCG(7, 7))
	s, s2 := make([]float64, n), make([]float64, n)
	u, v, jv, jtu := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	grad := make([]float64, len(net.Params()))
	rec := net.NewRecord()
	net.Start(s, c.rng())
	for _, l := range c.inputs(net) {
		for it := 0; it < c.Refine; it++ {
			net.Step(rec, s, s2, l, it == 0, it == c.Refine-1)
			for i := range u {
				u[i], v[i] = rng.NormFloat64(), rng.NormFloat64()
			}
			net.StepJVP(rec, v, jv)
			nn.Zero(jtu)
			net.StepVJP(rec, u, jtu, grad)
			a, b := nn.Dot(u, jv), nn.Dot(jtu, v)
			if math.Abs(a-b) > tol*math.Max(1, math.Abs(a)) {
				t.Fatalf("input %d iteration %d: <u, J v> = %.12g but <Jᵀu, v> = %.12g", l, it, a, b)
			}
			s, s2 = s2, s
		}
	}
}

// CheckStateJacobian compares StepJVP with central finite differences of
// Step with respect to the state, at every iteration of a string. Use it only
// for nets whose step is smooth in the state around the points visited.
func CheckStateJacobian(t testing.TB, net nn.Net, c Case, tol float64) {
	t.Helper()
	n := net.StateSize()
	s, s2 := make([]float64, n), make([]float64, n)
	rec, probe := net.NewRecord(), net.NewRecord()
	net.Start(s, c.rng())
	col, jv, e := make([]float64, n), make([]float64, n), make([]float64, n)
	for _, l := range c.inputs(net) {
		for it := 0; it < c.Refine; it++ {
			first, last := it == 0, it == c.Refine-1
			for j := 0; j < n; j++ {
				nn.Zero(e)
				e[j] = 1
				net.StepJVP(stepAt(net, rec, s, s2, l), e, jv)
				const h = 1e-6
				plus, minus := append([]float64(nil), s...), append([]float64(nil), s...)
				plus[j] += h
				minus[j] -= h
				sp, sm := make([]float64, n), make([]float64, n)
				net.Step(probe, plus, sp, l, false, false)
				net.Step(probe, minus, sm, l, false, false)
				for i := range col {
					col[i] = (sp[i] - sm[i]) / (2 * h)
					if math.Abs(col[i]-jv[i]) > tol*math.Max(1, math.Abs(col[i])) {
						t.Fatalf("input %d iteration %d: ∂s2[%d]/∂s[%d] = %.10g by JVP, %.10g by finite differences", l, it, i, j, jv[i], col[i])
					}
				}
			}
			net.Step(rec, s, s2, l, first, last)
			s, s2 = s2, s
		}
	}
}

// stepAt re-runs the iteration (without moving discrete memory) so that rec
// describes it.
func stepAt(net nn.Net, rec any, s, s2 []float64, l int) any {
	net.Step(rec, s, s2, l, false, false)
	return rec
}

// StepJacobianError compares StepJVP at the iteration rec describes, which
// read state s, with central finite differences of redo, which must run that
// iteration again from a perturbed s into s2 (restoring first any discrete
// memory the iteration moves). It returns an error naming the first entry
// ∂s2[i]/∂s[j] that differs by more than tol (relative, absolute below 1),
// or nil. s is perturbed in place and restored.
func StepJacobianError(net nn.Net, rec any, s []float64, redo func(s, s2 []float64), tol float64) error {
	n := net.StateSize()
	e, jv, sp, sm := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for j := range n {
		clear(e)
		e[j] = 1
		net.StepJVP(rec, e, jv)
		const h = 1e-6
		s[j] += h
		redo(s, sp)
		s[j] -= 2 * h
		redo(s, sm)
		s[j] += h
		for i := range n {
			fd := (sp[i] - sm[i]) / (2 * h)
			if math.Abs(fd-jv[i]) > tol*math.Max(1, math.Abs(fd)) {
				return fmt.Errorf("∂s2[%d]/∂s[%d] = %.10g by JVP, %.10g by finite differences", i, j, jv[i], fd)
			}
		}
	}
	return nil
}

// A Check checks one aspect of a net's derivatives on a case.
type Check struct {
	Name string
	Run  func(t testing.TB, net nn.Net, c Case)
}

// DerivativeChecks are the checks of a net's derivatives: first the gradient
// against finite differences of the loss (CheckGradient, tolerance 1e-6),
// then StepJVP against StepVJP (CheckAdjoint, within adjointTol) and against
// finite differences of Step (CheckStateJacobian, 1e-6).
func DerivativeChecks(adjointTol float64) [2]Check {
	return [2]Check{
		{"gradient", func(t testing.TB, net nn.Net, c Case) {
			t.Helper()
			CheckGradient(t, net, c, 1e-6)
		}},
		{"adjoint and state Jacobian", func(t testing.TB, net nn.Net, c Case) {
			t.Helper()
			CheckAdjoint(t, net, c, adjointTol)
			CheckStateJacobian(t, net, c, 1e-6)
		}},
	}
}
