package train

import (
	"strings"
	"testing"
)

// TestRegistry: every registered name builds an estimator of that name, the
// window reaches TBPTT, only UORO asks for a random stream, and an unknown
// name is refused with the list of known ones.
func TestRegistry(t *testing.T) {
	for _, name := range EstimatorNames() {
		e, err := NewEstimator(name, EstimatorOptions{Window: 7})
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() != name {
			t.Errorf("NewEstimator(%q) is named %q", name, e.Name())
		}
		if _, ok := e.(RandUser); ok != (name == "uoro") {
			t.Errorf("%s: RandUser is %v", name, ok)
		}
	}
	if e, _ := NewEstimator("tbptt", EstimatorOptions{Window: 7}); e.(*TBPTT).Window != 7 {
		t.Errorf("tbptt window %d, want 7", e.(*TBPTT).Window)
	}
	if got, want := EstimatorList(), "bptt, tbptt, rtrl or uoro"; got != want {
		t.Errorf("EstimatorList() = %q, want %q", got, want)
	}
	if _, err := NewEstimator("adam", EstimatorOptions{}); err == nil || !strings.Contains(err.Error(), EstimatorList()) {
		t.Errorf("unknown name: error %v", err)
	}
}
