package experiment

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/nspda/nspda/grammar"
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

// TestSoftStackConfig: soft_stack reaches the network (sized for the
// longest training, validation or selection string) and the trainer's
// sharpness schedule, its options are refused where they cannot apply, and
// a configuration without them keeps its key.
func TestSoftStackConfig(t *testing.T) {
	cfg := small()
	if b, _ := json.Marshal(cfg); bytes.Contains(b, []byte("soft")) {
		t.Errorf("a configuration without the soft stack names it: %s", b)
	}
	on := cfg
	on.SoftStack, on.SoftGrowth = true, 1.5
	s, err := prepare(on)
	if err != nil {
		t.Fatal(err)
	}
	n := s.net.(*nspda.Net)
	if !n.SoftStack || n.Reserved() == nspda.DefaultMaxLen || n.Reserved() < 10 {
		t.Errorf("the net has SoftStack %v, reserved %d", n.SoftStack, n.Reserved())
	}
	if st := s.settings; st.SoftStackBeta0 != 1 || st.SoftStackGrowth != 1.5 {
		t.Errorf("schedule β0 %g, growth %g; want 1, 1.5", st.SoftStackBeta0, st.SoftStackGrowth)
	}
	if on.Key() == cfg.Key() {
		t.Error("soft_stack does not change the key")
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.Model, c.Hints, c.SoftStack = "lstm", 0, true },
		func(c *Config) { c.SoftBeta0 = 2 },
		func(c *Config) { c.SoftStack, c.SoftGrowth = true, -1 },
		func(c *Config) { c.SoftAlternate, c.Patience, c.Restarts = true, 2, 2 },
		func(c *Config) { c.SoftStack, c.SoftAlternate = true, true },
	} {
		c := cfg
		bad(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "soft") {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// TestSizeRule: the wide rule draws J from M + 12..29 at third order (the
// paper's second-order range), changes the key only where it changes the
// rule (Normalize), and is refused for other models and unknown names.
func TestSizeRule(t *testing.T) {
	cfg := small()
	cfg.Order, cfg.Hints = 3, 0
	m := 0
	if lang, ok := grammar.Builtin(cfg.Grammar); ok {
		m = lang.PDA.M()
	}
	seen := map[int]bool{}
	for seed := uint64(1); seed <= 20; seed++ {
		c := cfg
		c.Seed, c.Size = seed, "wide"
		s, err := prepare(c)
		if err != nil {
			t.Fatal(err)
		}
		if s.j < m+12 || s.j > m+29 {
			t.Fatalf("seed %d: wide J = %d, outside M+12..M+29 (M = %d)", seed, s.j, m)
		}
		seen[s.j] = true
	}
	if len(seen) < 5 {
		t.Errorf("20 seeds drew only %d sizes", len(seen))
	}
	wide := cfg
	wide.Size = "wide"
	if wide.Normalize().Key() == cfg.Key() {
		t.Error("a third-order wide size keeps the paper rule's key")
	}
	two, twoWide := cfg, wide
	two.Order, twoWide.Order = 2, 2
	if twoWide.Normalize().Key() != two.Key() {
		t.Error("at second order the wide rule is the paper's, but its normalized key differs")
	}
	paper := cfg
	paper.Size = "paper"
	if paper.Normalize().Key() != cfg.Key() {
		t.Error(`size "paper" is not normalized to the paper's rule`)
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.Size = "huge" },
		func(c *Config) { c.Model, c.Hints, c.Size = "lstm", 0, "wide" },
	} {
		c := cfg
		bad(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "size") {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// TestLockStepConfig: lock_step is accepted with the default recipe (the
// standard curriculum's configuration carries no stage noise to refuse),
// refused where the batched kernels cannot run, and omitted from the key
// when off.
func TestLockStepConfig(t *testing.T) {
	d, _ := Recipe("default")
	on := d
	on.LockStep = true
	if err := on.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := prepare(on); err != nil {
		t.Fatal(err)
	}
	if on.Key() == d.Key() {
		t.Error("lock_step does not change the key")
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.Batch = 1 },
		func(c *Config) { c.Algo = "rtrl" },
		func(c *Config) { c.Hints = 2 },
		func(c *Config) { c.SoftStack = true },
		func(c *Config) { c.Model, c.Size = "lstm", "" },
	} {
		c := on
		bad(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "lock-step") {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// TestRestartSchedule: "luby" and a first start's patience need restarts,
// other names and negative patience are refused, and each changes the key
// only when it is set.
func TestRestartSchedule(t *testing.T) {
	c, _ := Recipe("default")
	plain := c.Key()
	c.RestartSchedule = "luby"
	if err := c.Validate(); err != nil {
		t.Fatalf("luby with restarts: %v", err)
	}
	if c.Key() == plain {
		t.Error("the luby schedule does not change the key")
	}
	f := c
	f.FirstPatience = 20
	if err := f.Validate(); err != nil || f.Key() == c.Key() {
		t.Errorf("first-patience 20: %v, key changed: %v", err, f.Key() != c.Key())
	}
	p := c
	p.RestartSchedule = ""
	p.Probes, p.ProbePatience = 32, 5
	if err := p.Validate(); err != nil || p.Key() == plain {
		t.Errorf("32 probes of patience 5: %v, key changed: %v", err, p.Key() != plain)
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.Probes = -1 },
		func(c *Config) { c.ProbePatience = 0 },
		func(c *Config) { c.ProbePatience = -1 },
		func(c *Config) { c.Patience, c.Restarts, c.Plateau = 0, 0, 0 },
	} {
		b := p
		bad(&b)
		if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "probe") {
			t.Errorf("%d probes of patience %d (patience %d): %v", b.Probes, b.ProbePatience, b.Patience, err)
		}
	}
	off, none := p, p
	off.Probes = 0
	none.Probes, none.ProbePatience = 0, 0
	if off = off.Normalize(); off.ProbePatience != 0 || off.Key() != none.Key() {
		t.Errorf("--probes 0 keeps probe-patience %d (key as without probes: %v)", off.ProbePatience, off.Key() == none.Key())
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.FirstPatience = -1 },
		func(c *Config) { c.FirstPatience, c.RestartSchedule, c.Restarts = 20, "", 0 },
	} {
		b := c
		bad(&b)
		if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "first-patience") {
			t.Errorf("first-patience %d with %d restarts: %v", b.FirstPatience, b.Restarts, err)
		}
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.RestartSchedule = "geometric" },
		func(c *Config) { c.Restarts = 0 },
	} {
		b := c
		bad(&b)
		if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "restart schedule") {
			t.Errorf("%q with %d restarts: %v", b.RestartSchedule, b.Restarts, err)
		}
	}
}
