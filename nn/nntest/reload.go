package nntest

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/nspda/nspda/nn"
)

// Reload rebuilds m through spec.Load from its config as JSON and its
// parameters, as the registry does with a model file; it fails t if either
// step fails. It returns the copy and the config it was built from.
func Reload(t testing.TB, spec nn.Spec, m nn.Model) (nn.Model, []byte) {
	t.Helper()
	cfg, err := json.Marshal(m.Config())
	if err != nil {
		t.Fatal(err)
	}
	m2, err := spec.Load(m.Alphabet(), cfg, m.Params())
	if err != nil {
		t.Fatalf("%s: %v", spec.Name, err)
	}
	return m2, cfg
}

// CheckReload reloads m (Reload) and fails t unless the copy has m's
// parameters, config and alphabet, and m's loss on c to the bit.
func CheckReload(t testing.TB, spec nn.Spec, m nn.Model, c Case) {
	t.Helper()
	m2, cfg := Reload(t, spec, m)
	if !slices.Equal(m.Params(), m2.Params()) || m2.Config() != m.Config() || string(m2.Alphabet()) != string(m.Alphabet()) {
		t.Fatalf("%s: round trip changed the model: %s", spec.Name, cfg)
	}
	if a, b := Loss(m, c), Loss(m2, c); a != b {
		t.Errorf("%s: loss %v before, %v after the round trip", spec.Name, a, b)
	}
}
