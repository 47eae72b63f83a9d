package experiment

import (
	"math"
	"testing"
)

// TestValidateNonFinite: Validate refuses NaN and infinite settings, and
// Key still tells such configurations apart (it used to give them all the
// hash of an empty encoding).
func TestValidateNonFinite(t *testing.T) {
	keys := map[string]bool{Defaults().Key(): true}
	if c := Defaults(); c.Set("hint_h", math.NaN()) == nil {
		t.Error("a NaN hint strength is set")
	}
	for _, set := range []func(*Config){
		func(c *Config) { c.LR = math.NaN() },
		func(c *Config) { c.LR = math.Inf(1) },
		func(c *Config) { c.NoiseScale = math.NaN() },
		func(c *Config) { c.StageNoise = math.NaN() },
		func(c *Config) { c.Noise = math.NaN() },
	} {
		c := Defaults()
		set(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%+v: Validate accepts it", c)
		}
		if k := c.Key(); keys[k] {
			t.Errorf("%+v: key %s is another configuration's", c, k)
		} else {
			keys[k] = true
		}
	}
}
