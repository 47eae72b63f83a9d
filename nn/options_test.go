package nn

import (
	"math"
	"strings"
	"testing"
)

// testOptions are a model's own options for the tests.
type testOptions struct {
	Order int     `json:"order"`
	H     float64 `json:"h"`
	On    bool    `json:"on,omitempty"`
}

func (o *testOptions) Validate() error { return nil }

// TestSetOption: a key the options have is set; an unknown key, a value
// the field cannot hold and a non-finite number are one-line errors that
// name the key, say nothing of JSON, and leave the options unchanged.
func TestSetOption(t *testing.T) {
	o := &testOptions{Order: 3, H: 1}
	if err := SetOption(o, "order", 2); err != nil || o.Order != 2 {
		t.Fatalf("order 2: %v, %+v", err, o)
	}
	if !HasOption(o, "on") || HasOption(o, "off") {
		t.Error("HasOption")
	}
	for _, c := range []struct {
		key   string
		value any
	}{{"off", true}, {"order", "abc"}, {"order", 2.5}, {"on", 1}, {"h", math.NaN()}, {"h", math.Inf(1)}} {
		err := SetOption(o, c.key, c.value)
		if err == nil || !strings.Contains(err.Error(), c.key) || strings.Contains(err.Error(), "json") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s = %v: %v", c.key, c.value, err)
		}
	}
	if *o != (testOptions{Order: 2, H: 1}) {
		t.Errorf("options changed by errors: %+v", o)
	}
}
