package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSigmoid checks σ at known points and its symmetry σ(−v) = 1 − σ(v).
func TestSigmoid(t *testing.T) {
	for _, c := range []struct{ v, want float64 }{
		{0, 0.5}, {math.Log(3), 0.75}, {-math.Log(3), 0.25}, {800, 1}, {-800, 0},
	} {
		if got := Sigmoid(c.v); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("Sigmoid(%g) = %g, want %g", c.v, got, c.want)
		}
	}
	for _, v := range []float64{0.1, 1, 2.5, 10, 30} {
		if d := Sigmoid(-v) - (1 - Sigmoid(v)); math.Abs(d) > 1e-15 {
			t.Errorf("σ(−%g) − (1 − σ(%g)) = %g", v, v, d)
		}
	}
}

// TestBCE checks BCE against −[y log σ(o) + (1−y) log(1−σ(o))], its symmetry
// BCE(o, 1) = BCE(−o, 0), its finiteness at large logits, and its derivative
// σ(o) − y by central differences.
func TestBCE(t *testing.T) {
	for _, o := range []float64{-5, -1, -0.25, 0, 0.5, 2, 6} {
		for _, y := range []float64{0, 1} {
			p := Sigmoid(o)
			want := -(y*math.Log(p) + (1-y)*math.Log(1-p))
			if got := BCE(o, y); math.Abs(got-want) > 1e-12 {
				t.Errorf("BCE(%g, %g) = %g, want %g", o, y, got, want)
			}
			const h = 1e-6
			fd := (BCE(o+h, y) - BCE(o-h, y)) / (2 * h)
			if d := fd - (p - y); math.Abs(d) > 1e-8 {
				t.Errorf("dBCE/do at (%g, %g) = %g by differences, σ(o) − y = %g", o, y, fd, p-y)
			}
		}
		if d := BCE(o, 1) - BCE(-o, 0); math.Abs(d) > 1e-15 {
			t.Errorf("BCE(%g, 1) − BCE(%g, 0) = %g", o, -o, d)
		}
	}
	if got := BCE(0, 1); math.Abs(got-math.Ln2) > 1e-15 {
		t.Errorf("BCE(0, 1) = %g, want log 2", got)
	}
	for _, c := range []struct{ o, y, want float64 }{{1000, 1, 0}, {-1000, 0, 0}, {1000, 0, 1000}, {-1000, 1, 1000}} {
		if got := BCE(c.o, c.y); got != c.want {
			t.Errorf("BCE(%g, %g) = %g, want %g", c.o, c.y, got, c.want)
		}
	}
}

// TestBCEGrad checks BCEGrad against BCE and Sigmoid: equal to 1e-15
// relative, and σ(o) to the bit for o ≥ 0.
func TestBCEGrad(t *testing.T) {
	for _, o := range []float64{-1000, -40, -5, -1, -0.25, -1e-9, 0, 1e-9, 0.5, 2, 6, 40, 1000} {
		for _, y := range []float64{0, 1} {
			l, d := BCEGrad(o, y)
			wl, wd := BCE(o, y), Sigmoid(o)-y
			if math.Abs(l-wl) > 1e-15*math.Max(1, math.Abs(wl)) || math.Abs(d-wd) > 1e-15 {
				t.Errorf("BCEGrad(%g, %g) = %g, %g; want %g, %g", o, y, l, d, wl, wd)
			}
			if o >= 0 && d != wd {
				t.Errorf("BCEGrad(%g, %g): σ(o) − y = %g, Sigmoid gives %g", o, y, d, wd)
			}
		}
	}
}

// TestDotZero checks the two vector helpers.
func TestDotZero(t *testing.T) {
	a, b := []float64{1, 2, 3}, []float64{4, -5, 6}
	if got := Dot(a, b); got != 12 {
		t.Errorf("Dot = %g, want 12", got)
	}
	Zero(a)
	for i, v := range a {
		if v != 0 {
			t.Errorf("after Zero, a[%d] = %g", i, v)
		}
	}
}

// affine is a one-unit linear net: s2 = w·s + u[l], o = v·s2, starting from
// s = 1. It counts Starts and Steps and records Reserve calls.
type affine struct {
	w, v     float64
	u        []float64 // per input, the end marker last
	starts   int
	steps    []bool // last flag of each Step
	reserved int
}

func (n *affine) Params() []float64 { return nil }
func (n *affine) StateSize() int    { return 1 }
func (n *affine) InputSize() int    { return len(n.u) }
func (n *affine) NewRecord() any    { return nil }
func (n *affine) Start(s []float64, rng *rand.Rand) {
	n.starts++
	s[0] = 1
}
func (n *affine) Step(rec any, s, s2 []float64, l int, first, last bool) float64 {
	n.steps = append(n.steps, last)
	s2[0] = n.w*s[0] + n.u[l]
	return n.v * s2[0]
}
func (n *affine) StepVJP(rec any, ds2, ds, grad []float64)        {}
func (n *affine) StepJVP(rec any, ds, ds2 []float64)              {}
func (n *affine) OutVJP(rec any, do float64, ds2, grad []float64) {}
func (n *affine) Reserve(maxLen int)                              { n.reserved = maxLen }
func (n *affine) Reserved() int                                   { return n.reserved }

// TestClassifier runs the Classifier on the affine net and compares with the
// prediction computed by hand.
func TestClassifier(t *testing.T) {
	// Inputs 0 (a), 1 (b), 2 (the end marker $).
	net := &affine{w: 0.5, v: 2, u: []float64{1, -1, 0.25}}
	c := NewClassifier(net, 1)
	// "ab": s = 1 → 0.5+1 = 1.5 → 0.75−1 = −0.25 → −0.125+0.25 = 0.125; o = 0.25.
	accept, y := c.Classify([]int{0, 1})
	if want := Sigmoid(0.25); !accept || math.Abs(y-want) > 1e-15 {
		t.Errorf("Classify(ab) = %v, %g, want true, %g", accept, y, want)
	}
	if len(net.steps) != 3 || net.reserved != 2 {
		t.Errorf("ab: %d steps, reserved %d; want 3 steps, reserved 2", len(net.steps), net.reserved)
	}
	// "bb" with 2 iterations per symbol: s = 1 → −0.5 → −1.25 (b) → −1.625 →
	// −1.8125 (b) → −0.65625 → −0.078125 ($); o = −0.15625: reject.
	net.steps = nil
	c = NewClassifier(net, 2)
	accept, y = c.Classify([]int{1, 1})
	if want := Sigmoid(-0.15625); accept || math.Abs(y-want) > 1e-15 {
		t.Errorf("Classify(bb), refine 2 = %v, %g, want false, %g", accept, y, want)
	}
	if want := []bool{false, true, false, true, false, true}; len(net.steps) != len(want) {
		t.Errorf("refine 2: %d steps, want %d", len(net.steps), len(want))
	} else {
		for i := range want {
			if net.steps[i] != want[i] {
				t.Errorf("refine 2: step %d has last = %v, want %v", i, net.steps[i], want[i])
			}
		}
	}
	// A shorter string does not shrink the reservation; the empty string
	// reads only the end marker, twice: s = 1 → 0.75 → 0.625, o = 1.25.
	accept, y = c.Classify(nil)
	if want := Sigmoid(1.25); !accept || math.Abs(y-want) > 1e-15 || net.reserved != 2 {
		t.Errorf("Classify(ε) = %v, %g (reserved %d), want true, %g (reserved 2)", accept, y, net.reserved, want)
	}
	if NewClassifier(net, 0).Refine != 1 {
		t.Errorf("refine 0 is not raised to 1")
	}
}
