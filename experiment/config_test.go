package experiment

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/nspda/nspda/model/nspda"
)

// TestValidateRefusesInapplicable: an option a model does not have is an
// error, not silently ignored.
func TestValidateRefusesInapplicable(t *testing.T) {
	for _, tc := range []struct {
		model string
		set   func(*Config)
		want  string
	}{
		{"lstm", func(c *Config) { c.Stacks = 3 }, "stacks"},
		{"nspda", func(c *Config) { c.Stacks = 3 }, "stacks"},
		{"gru", func(c *Config) { c.Rounding = true }, "rounding"},
		{"nnpda", func(c *Config) { c.Rounding = true }, "rounding"},
		{"nspda", func(c *Config) { c.Rounding = true }, "rounding"},
		{"lstm", func(c *Config) { c.Noise = 15 }, "noise"},
		{"elman", func(c *Config) { c.Noise = 15 }, "noise"},
		{"stack-rnn", func(c *Config) { c.Noise = 15 }, "noise"},
		{"lstm", func(c *Config) { c.NoReadGrad = true }, "no-read-grad"},
		{"nnpda", func(c *Config) { c.NoReadGrad = true }, "no-read-grad"},
		{"nspda", func(c *Config) { c.Stage2Annealed, c.Curriculum = true, "standard" }, "stage2-annealed"},
		{"lstm", func(c *Config) { c.Stage2Annealed, c.Curriculum = true, "il" }, "stage2-annealed"},
	} {
		c := Defaults()
		c.Model, c.Hints = tc.model, 0
		tc.set(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s with %s: %v", tc.model, tc.want, err)
		}
	}
	for _, tc := range []struct {
		model string
		set   func(*Config)
	}{
		{"stack-rnn", func(c *Config) { c.Stacks, c.Rounding = 3, true }},
		{"list-rnn", func(c *Config) { c.Stacks, c.Rounding = 2, true }},
		{"nspda", func(c *Config) { c.Noise = 15 }},
		{"gru", func(c *Config) { c.Stage2Annealed = true }},
		{"second-order", func(c *Config) { c.Noise = 15 }},
		{"nnpda", func(c *Config) { c.Noise = 15 }},
		{"lstm", func(c *Config) { c.Noise = 0 }},
		{"nspda", func(c *Config) { c.NoReadGrad = true }},
	} {
		c := Defaults()
		c.Model = tc.model
		if tc.model != "nspda" {
			c.Hints = 0
		}
		tc.set(&c)
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %+v: %v", tc.model, c, err)
		}
	}
}

// TestGridsValidate: every configuration of every table's grid passes
// Validate (the stored results were made with them).
func TestGridsValidate(t *testing.T) {
	for _, quick := range []bool{false, true} {
		for _, name := range TableNames() {
			tab, err := Grid(name, GridOptions{Seeds: 1, Quick: quick})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range tab.Configs() {
				if err := c.Validate(); err != nil {
					t.Errorf("%s: %+v: %v", name, c, err)
				}
			}
		}
	}
}

// TestNoReadGradConfig: no_read_grad reaches the network, and a
// configuration without it keeps the key it had before the option existed.
func TestNoReadGradConfig(t *testing.T) {
	cfg := small()
	b, _ := json.Marshal(cfg)
	if bytes.Contains(b, []byte("no_read_grad")) {
		t.Errorf("a configuration without no-read-grad names it: %s", b)
	}
	for _, on := range []bool{false, true} {
		c := cfg
		c.NoReadGrad = on
		s, err := prepare(c)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.net.(*nspda.Net).NoReadGrad; got != on {
			t.Errorf("no_read_grad %v: the net has NoReadGrad %v", on, got)
		}
	}
	on := cfg
	on.NoReadGrad = true
	if on.Key() == cfg.Key() {
		t.Error("no_read_grad does not change the key")
	}
}
