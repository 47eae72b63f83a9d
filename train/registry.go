package train

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// EstimatorOptions are the settings an estimator's constructor may use; each
// uses those that apply to it and ignores the rest.
type EstimatorOptions struct {
	Window int // tbptt: the truncation window, in input symbols
}

// estimators is the registry of gradient estimators, by name, in the order
// EstimatorNames lists them. Adding an algorithm is its file and one line
// here.
var estimators = []struct {
	name     string
	new      func(EstimatorOptions) Estimator
	lockStep bool // runs minibatches in lock-step (Settings.LockStep: BatchBPTT)
}{
	{"bptt", func(EstimatorOptions) Estimator { return &BPTT{} }, true},
	{"tbptt", func(o EstimatorOptions) Estimator { return &TBPTT{Window: o.Window} }, false},
	{"rtrl", func(EstimatorOptions) Estimator { return &RTRL{} }, false},
	{"uoro", func(EstimatorOptions) Estimator { return &UORO{} }, false},
}

// NewEstimator returns a new estimator of the named algorithm.
func NewEstimator(name string, opt EstimatorOptions) (Estimator, error) {
	for _, e := range estimators {
		if e.name == name {
			return e.new(opt), nil
		}
	}
	return nil, fmt.Errorf("unknown algorithm %q (want %s)", name, EstimatorList())
}

// HasLockStep reports whether the named algorithm runs minibatches in
// lock-step (Settings.LockStep).
func HasLockStep(name string) bool {
	for _, e := range estimators {
		if e.name == name {
			return e.lockStep
		}
	}
	return false
}

// EstimatorNames lists the registered algorithms.
func EstimatorNames() []string {
	names := make([]string, len(estimators))
	for i, e := range estimators {
		names[i] = e.name
	}
	return names
}

// EstimatorList renders the registered algorithms for a message:
// "bptt, tbptt, rtrl or uoro".
func EstimatorList() string {
	n := EstimatorNames()
	if len(n) < 2 {
		return strings.Join(n, "")
	}
	return strings.Join(n[:len(n)-1], ", ") + " or " + n[len(n)-1]
}

// RandUser is implemented by estimators that draw random numbers of their
// own (UORO's signs). Run gives them a stream independent of the net's, and
// saves and restores it with the checkpoint.
type RandUser interface {
	SetRand(rng *rand.Rand)
}
