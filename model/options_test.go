package model

import (
	"testing"

	"github.com/nspda/nspda/nn"
)

// opts is nn.Options of spec with hidden units and the options of set that
// the model has (order, stacks, ...); the others are left out, as the
// options a model does not have.
func opts(spec nn.Spec, hidden int, set map[string]any) nn.Options {
	o := nn.Options{Hidden: hidden}
	if spec.Options == nil {
		return o
	}
	o.Own = spec.Options()
	for k, v := range set {
		if nn.HasOption(o.Own, k) {
			if err := nn.SetOption(o.Own, k, v); err != nil {
				panic(err)
			}
		}
	}
	return o
}

// TestOptionsOwned: every model's default options are valid, and a key is
// set only on a model that has it.
func TestOptionsOwned(t *testing.T) {
	for _, spec := range Specs() {
		if spec.Options == nil {
			continue
		}
		o := spec.Options()
		if err := o.Validate(); err != nil {
			t.Errorf("%s: default options %+v: %v", spec.Name, o, err)
		}
		if nn.HasOption(o, "no-such-option") || nn.SetOption(o, "no-such-option", 1) == nil {
			t.Errorf("%s has an option no-such-option", spec.Name)
		}
	}
	if got := Having("order"); got != "nspda and nnpda" {
		t.Errorf("Having(order) = %q", got)
	}
	if got := Having("stacks"); got != "stack-rnn and list-rnn" {
		t.Errorf("Having(stacks) = %q", got)
	}
}
