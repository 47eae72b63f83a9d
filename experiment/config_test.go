package experiment

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/program"
	"github.com/nspda/nspda/train"
)

// setOpts sets the model options key, value, ... of c, panicking on error.
func setOpts(c *Config, kv ...any) {
	for i := 0; i+1 < len(kv); i += 2 {
		if err := c.Set(kv[i].(string), kv[i+1]); err != nil {
			panic(err)
		}
	}
}

// checkRefused fails t unless each edit of base makes Validate fail with an
// error that mentions want.
func checkRefused(t *testing.T, base Config, want string, edits ...func(*Config)) {
	t.Helper()
	for _, edit := range edits {
		c := base
		edit(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// TestValidateRefusesInapplicable: an option a model does not have is an
// error, not silently ignored: setting it (Set), reading it from JSON, and a
// configuration whose model changed under it (Validate).
func TestValidateRefusesInapplicable(t *testing.T) {
	for _, tc := range []struct {
		model, key string
		value      any
	}{
		{"lstm", "stacks", 3},
		{"nspda", "stacks", 3},
		{"gru", "rounding", true},
		{"nnpda", "rounding", true},
		{"nspda", "rounding", true},
		{"lstm", "no_read_grad", true},
		{"nnpda", "no_read_grad", true},
		{"lstm", "order", 2},
		{"stack-rnn", "hints", 1},
		{"nspda", "dead_hint", true},
	} {
		c := Defaults().WithModel(tc.model)
		if err := c.Set(tc.key, tc.value); err == nil || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%s with %s: %v", tc.model, tc.key, err)
		}
		b, _ := json.Marshal(map[string]any{"model": tc.model, tc.key: tc.value})
		if err := json.Unmarshal(b, &c); err == nil || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%s: %v", b, err)
		}
	}
	stale := Defaults()
	stale.Model = "lstm" // keeps the NSPDA's options
	if err := stale.Validate(); err == nil || !strings.Contains(err.Error(), "applies to the nspda") {
		t.Errorf("lstm with the nspda's options: %v", err)
	}
	for _, tc := range []struct {
		model string
		set   func(*Config)
		want  string
	}{
		{"lstm", func(c *Config) { c.Noise = 15 }, "noise"},
		{"elman", func(c *Config) { c.Noise = 15 }, "noise"},
		{"stack-rnn", func(c *Config) { c.Noise = 15 }, "noise"},
		{"nspda", func(c *Config) { c.Stage2Annealed, c.Curriculum = true, "standard" }, "stage2_annealed"},
		{"lstm", func(c *Config) { c.Stage2Annealed, c.Curriculum = true, "il" }, "stage2_annealed"},
		{"stack-rnn", func(c *Config) { setOpts(c, "stacks", -1) }, "stacks"},
		{"nspda", func(c *Config) { setOpts(c, "order", 4) }, "order"},
		{"nnpda", func(c *Config) { setOpts(c, "order", 1) }, "order"},
		{"nspda", func(c *Config) { setOpts(c, "hints", 3) }, "hints"},
		{"nspda", func(c *Config) { setOpts(c, "hint_h", 0) }, "hint strength"},
		{"nspda", func(c *Config) { setOpts(c, "hint_h", 1e6) }, "hint_h"},
	} {
		c := Defaults().WithModel(tc.model)
		tc.set(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s with %s: %v", tc.model, tc.want, err)
		}
	}
	for _, tc := range []struct {
		model string
		set   func(*Config)
	}{
		{"stack-rnn", func(c *Config) { setOpts(c, "stacks", 3, "rounding", true) }},
		{"list-rnn", func(c *Config) { setOpts(c, "stacks", 2, "rounding", true) }},
		{"nspda", func(c *Config) { c.Noise = 15 }},
		{"gru", func(c *Config) { c.Stage2Annealed = true }},
		{"second-order", func(c *Config) { c.Noise = 15 }},
		{"nnpda", func(c *Config) { c.Noise = 15 }},
		{"nnpda", func(c *Config) { setOpts(c, "order", 2, "dead_hint", true) }},
		{"lstm", func(c *Config) { c.Noise = 0 }},
		{"nspda", func(c *Config) { setOpts(c, "no_read_grad", true) }},
	} {
		c := Defaults().WithModel(tc.model)
		tc.set(&c)
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %+v: %v", tc.model, c, err)
		}
	}
}

// TestWithModel: a configuration for another model keeps the options both
// models have (the order, from the NSPDA to the NNPDA) and drops the others.
func TestWithModel(t *testing.T) {
	c := Defaults()
	setOpts(&c, "order", 2, "no_read_grad", true)
	n := c.WithModel("nnpda")
	if got := n.Option("order"); got != 2.0 {
		t.Errorf("nnpda order %v, want 2", got)
	}
	if n.Option("no_read_grad") != nil || n.Option("hints") != nil {
		t.Errorf("nnpda options %s", n.opts)
	}
	if err := n.Validate(); err != nil {
		t.Error(err)
	}
	back := n.WithModel("nspda")
	if back.Option("hints") != 2.0 || back.Option("order") != 2.0 {
		t.Errorf("back to nspda: %s", back.opts)
	}
}

// netConfig is the JSON of the configuration of the net prepared for cfg.
func netConfig(t *testing.T, s *setup) string {
	t.Helper()
	b, err := json.Marshal(s.net.Config())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
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
		setOpts(&c, "no_read_grad", on)
		s, err := prepare(c)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(netConfig(t, s), `"no_read_grad":true`); got != on {
			t.Errorf("no_read_grad %v: the net's config is %s", on, netConfig(t, s))
		}
	}
	on := cfg
	setOpts(&on, "no_read_grad", true)
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
	setOpts(&on, "soft_stack", true, "soft_growth", 1.5)
	s, err := prepare(on)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := s.net.(nn.Reserver)
	if !strings.Contains(netConfig(t, s), `"soft_stack":true`) || !ok || r.Reserved() == nspda.DefaultMaxLen || r.Reserved() < 10 {
		t.Errorf("the net has config %s, reserved %v", netConfig(t, s), r)
	}
	if st := s.settings; st.SoftStackBeta0 != 1 || st.SoftStackGrowth != 1.5 {
		t.Errorf("schedule β0 %g, growth %g; want 1, 1.5", st.SoftStackBeta0, st.SoftStackGrowth)
	}
	if on.Key() == cfg.Key() {
		t.Error("soft_stack does not change the key")
	}
	if c := cfg.WithModel("lstm"); c.Set("soft_stack", true) == nil {
		t.Error("lstm takes soft_stack")
	}
	checkRefused(t, cfg, "soft",
		func(c *Config) { setOpts(c, "soft_beta0", 2) },
		func(c *Config) { setOpts(c, "soft_stack", true, "soft_growth", -1) },
		func(c *Config) { setOpts(c, "soft_alternate", true); c.Patience, c.Restarts = 2, 2 },
		func(c *Config) { setOpts(c, "soft_stack", true, "soft_alternate", true) },
	)
}

// checkDraws prepares cfg under the size rule for seeds 1–20, checks that
// every J lies in M+lo..M+hi (M the grammar's PDA states), and returns how
// many distinct sizes it drew.
func checkDraws(t *testing.T, cfg Config, rule string, lo, hi int) int {
	t.Helper()
	lang, _ := grammar.Builtin(cfg.Grammar)
	m := lang.PDA.M()
	seen := map[int]bool{}
	for seed := uint64(1); seed <= 20; seed++ {
		c := cfg
		c.Seed, c.Size = seed, rule
		s, err := prepare(c)
		if err != nil {
			t.Fatal(err)
		}
		if s.j < m+lo || s.j > m+hi {
			t.Fatalf("seed %d: %s J = %d, outside M+%d..M+%d (M = %d)", seed, rule, s.j, lo, hi, m)
		}
		seen[s.j] = true
	}
	return len(seen)
}

// TestSmallSizeRule: the small rule draws J from M + 2..6 at second order
// (where the paper's rule draws M + 12..29) and as the paper's rule at third
// order, where its key is the paper rule's; on data files it is the paper's
// 8; the action recipe takes it.
func TestSmallSizeRule(t *testing.T) {
	cfg := small()
	setOpts(&cfg, "order", 2, "hints", 0)
	if n := checkDraws(t, cfg, "small", 2, 6); n < 4 {
		t.Errorf("20 seeds drew only %d sizes", n)
	}
	for seed := uint64(1); seed <= 20; seed++ {
		c := cfg
		c.Seed, c.Size = seed, "small"
		third, paper := c, c
		setOpts(&third, "order", 3)
		setOpts(&paper, "order", 3)
		paper.Size = ""
		st, err := prepare(third)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := prepare(paper)
		if err != nil {
			t.Fatal(err)
		}
		if st.j != sp.j || !slices.Equal(st.net.Params(), sp.net.Params()) {
			t.Fatalf("seed %d: at third order the small rule drew J = %d, the paper's %d", seed, st.j, sp.j)
		}
		if third.Normalize().Key() != paper.Key() {
			t.Fatal("at third order the small rule is the paper's, but its normalized key differs")
		}
	}
	sm := cfg
	sm.Size = "small"
	if sm.Normalize().Key() == cfg.Key() {
		t.Error("a second-order small size keeps the paper rule's key")
	}
	sm.Grammar, sm.Data = "", "train.jsonl"
	if sm.Normalize().Size != "" {
		t.Error("on data files the small rule (8 state neurons, the paper's) is not normalized away")
	}
	if a, _ := Recipe("action"); a.Size != "small" {
		t.Errorf("the action recipe's size rule is %q", a.Size)
	}
}

// TestSizeRule: the wide rule draws J from M + 12..29 at third order (the
// paper's second-order range), changes the key only where it changes the
// rule (Normalize), and is refused for other models and unknown names.
func TestSizeRule(t *testing.T) {
	cfg := small()
	setOpts(&cfg, "order", 3, "hints", 0)
	if n := checkDraws(t, cfg, "wide", 12, 29); n < 5 {
		t.Errorf("20 seeds drew only %d sizes", n)
	}
	wide := cfg
	wide.Size = "wide"
	if wide.Normalize().Key() == cfg.Key() {
		t.Error("a third-order wide size keeps the paper rule's key")
	}
	two, twoWide := cfg, wide
	setOpts(&two, "order", 2)
	setOpts(&twoWide, "order", 2)
	if twoWide.Normalize().Key() != two.Key() {
		t.Error("at second order the wide rule is the paper's, but its normalized key differs")
	}
	// On data files there is no M: 8 state neurons, or 20 under the wide
	// rule, at either order.
	twoWide.Grammar, twoWide.Data = "", "train.jsonl"
	if twoWide.Normalize().Size != "wide" {
		t.Error("the wide rule is dropped from a second-order run on data files, where it draws another J")
	}
	paper := cfg
	paper.Size = "paper"
	if paper.Normalize().Key() != cfg.Key() {
		t.Error(`size "paper" is not normalized to the paper's rule`)
	}
	checkRefused(t, cfg, "size",
		func(c *Config) { c.Size = "huge" },
		func(c *Config) { *c = c.WithModel("lstm"); c.Size = "wide" },
	)
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
	checkRefused(t, on, "lock_step",
		func(c *Config) { c.Batch = 1 },
		func(c *Config) { c.Algo = "rtrl" },
		func(c *Config) { setOpts(c, "hints", 2) },
		func(c *Config) { setOpts(c, "soft_stack", true) },
		func(c *Config) { *c = c.WithModel("lstm"); c.Size, c.Finish, c.FinishRate, c.FinishBeta = "", 0, 0, 0 },
	)
}

// TestProbes: probes need patience and a probe patience of at least 1,
// change the key only when set, and --probes 0 leaves no probe patience
// behind; own patience is a new key when on and refused without restarts.
func TestProbes(t *testing.T) {
	c, _ := Recipe("serial") // the default's starts, one at a time (the portfolio needs patience)
	plain := c.Key()
	p := c
	p.Probes, p.ProbePatience = 32, 5
	if err := p.Validate(); err != nil || p.Key() == plain {
		t.Errorf("32 probes of patience 5: %v, key changed: %v", err, p.Key() != plain)
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.Probes = -1 },
		func(c *Config) { c.ProbePatience = 0 },
		func(c *Config) { c.ProbePatience = -1 },
		func(c *Config) { c.Patience, c.Restarts, c.Polish, c.FinalStarts = 0, 0, 0, 0 },
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
	if off = off.Normalize(); off.ProbePatience != 0 || off.Key() != none.Normalize().Key() {
		t.Errorf("--probes 0 keeps probe-patience %d (key as without probes: %v)", off.ProbePatience, off.Key() == none.Key())
	}
	own := p
	own.OwnPatience = true
	if err := own.Validate(); err != nil || own.Key() == p.Key() {
		t.Errorf("own-patience: %v, key changed: %v", err, own.Key() != p.Key())
	}
	own.Restarts = 0
	if err := own.Validate(); err == nil || !strings.Contains(err.Error(), "own_patience needs") {
		t.Errorf("own-patience without restarts: %v", err)
	}
}

// TestSelectMax: --select-max lengthens the select split (and only it), is
// a new key unless it is the split's own 40, and is refused out of range or
// without patience.
func TestSelectMax(t *testing.T) {
	c, _ := Recipe("serial") // the default's starts, one at a time (the portfolio needs patience)
	if c.SelectMax != 100 {
		t.Errorf("the default recipe selects on lengths up to %d, want 100 (docs/training.md)", c.SelectMax)
	}
	c.Grammar, c.SelectMax = "dyck2", 0
	lang, _ := grammar.Builtin(c.Grammar)
	_, _, short, err := splits(c, lang)
	if err != nil {
		t.Fatal(err)
	}
	long := c
	long.SelectMax = 100
	if err := long.Validate(); err != nil || long.Key() == c.Key() {
		t.Fatalf("select-max 100: %v, key changed: %v", err, long.Key() != c.Key())
	}
	tr0, _, _, _ := splits(c, lang)
	tr1, _, sel, err := splits(long, lang)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tr0, tr1) {
		t.Error("select-max changes the training set")
	}
	maxLen := func(ex []dataset.Example) (lo, hi int) {
		lo = 1 << 30
		for _, e := range ex {
			lo, hi = min(lo, len(e.String)), max(hi, len(e.String))
		}
		return lo, hi
	}
	if lo, hi := maxLen(short); lo < 22 || hi > 40 {
		t.Errorf("default select split spans lengths %d..%d, want within 22..40", lo, hi)
	}
	if lo, hi := maxLen(sel); lo < 22 || hi > 100 || hi <= 60 || len(sel) != len(short) {
		t.Errorf("select-max 100 gives %d strings of lengths %d..%d, want %d within 22..100 reaching past 60", len(sel), lo, hi, len(short))
	}
	same := c
	same.SelectMax = 40
	if same.Normalize().Key() != c.Normalize().Key() {
		t.Error("select-max 40 (the split's own) changes the key")
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.SelectMax = 21 },
		func(c *Config) { c.SelectMax = -1 },
		func(c *Config) {
			c.Patience, c.Restarts, c.Probes, c.Polish, c.FinalStarts = 0, 0, 0, 0, 0
		},
	} {
		b := long
		bad(&b)
		if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "select_max") {
			t.Errorf("select-max %d (patience %d): %v", b.SelectMax, b.Patience, err)
		}
	}
}

// TestEdits: --edits joins one-edit neighbours of members, of lengths the
// language has no member at too, to the training and select sets (which
// keep their own strings first), is a new key, and is refused out of range
// or with --data.
func TestEdits(t *testing.T) {
	c, _ := Recipe("default")
	c.Grammar, c.Edits = "anbn", 0
	lang, _ := grammar.Builtin(c.Grammar)
	tr0, va0, sel0, err := splits(c, lang)
	if err != nil {
		t.Fatal(err)
	}
	e := c
	e.Edits = 100
	if err := e.Validate(); err != nil || e.Key() == c.Key() {
		t.Fatalf("edits 100: %v, key changed: %v", err, e.Key() != c.Key())
	}
	tr, va, sel, err := splits(e, lang)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tr[:len(tr0)], tr0) || !reflect.DeepEqual(va, va0) || !reflect.DeepEqual(sel[:len(sel0)], sel0) {
		t.Error("edits changes the strings the sets had")
	}
	count := func(ex []dataset.Example, lo, hi int) (pos, neg, odd int) {
		for _, x := range ex {
			if len(x.String) < lo || len(x.String) > hi {
				t.Errorf("%q outside lengths %d..%d", x.String, lo, hi)
			}
			if x.Label == dataset.Positive {
				pos++
			} else {
				neg++
			}
			if len(x.String)%2 == 1 {
				odd++
			}
		}
		return pos, neg, odd
	}
	if pos, neg, odd := count(tr[len(tr0):], 1, 21); pos != 100 || neg != 100 || odd != 100 {
		t.Errorf("training edits: %d+%d, %d of odd length; want 100+100, every negative of odd length", pos, neg, odd)
	}
	if _, _, odd := count(tr0, 1, 21); odd != 0 {
		t.Errorf("the paper's training set has %d strings of odd length, want 0", odd)
	}
	if pos, neg, odd := count(sel[len(sel0):], 22, 100); pos == 0 || neg != pos || odd != neg {
		t.Errorf("select edits: %d+%d, %d of odd length; want balance, every negative of odd length", pos, neg, odd)
	}
	if err := dataset.Check(lang, tr); err != nil {
		t.Error(err)
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.Edits = -1 },
		func(c *Config) { c.Edits = dataset.MaxExamples },
		func(c *Config) { c.Grammar, c.Data, c.SelectMax = "", "train.jsonl", 0 },
	} {
		b := e
		bad(&b)
		if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "edits") {
			t.Errorf("edits %d (data %q): %v", b.Edits, b.Data, err)
		}
	}
}

// TestSizeRules: the default recipe tries the paper's size first; "both"
// needs selection and a drawn J, and at second order, where the rules
// agree, it is the paper's (one key).
func TestSizeRules(t *testing.T) {
	c, _ := Recipe("serial") // the default's starts, one at a time (the portfolio needs patience)
	// Each size's starts and polish, and the wide size's final starts.
	if c.Size != "both" || c.EpochBudget() != 3*c.MaxEpochs+2*min(2*c.Polish, c.MaxEpochs) {
		t.Errorf("default recipe: size %q, epoch budget %d", c.Size, c.EpochBudget())
	}
	second := c
	if err := second.Set("order", 2); err != nil {
		t.Fatal(err)
	}
	// At second order the paper's rule is the wide one, and "both" trains
	// the small size first: its own key, two phases.
	paper := second
	paper.Size = ""
	if n := second.Normalize(); n.Key() == paper.Key() || n.EpochBudget() != c.EpochBudget() {
		t.Error(`at second order "both" is normalized to one size`)
	}
	if ph := second.sizePhases(); ph[0].Size != "small" || ph[1].Size != "wide" || second.FirstSize() != "small" || c.FirstSize() != "paper" {
		t.Errorf(`"both" phases %q, %q; first size %q at second order, %q at third`, ph[0].Size, ph[1].Size, second.FirstSize(), c.FirstSize())
	}
	for _, bad := range []func(*Config){
		func(c *Config) {
			c.Patience, c.Restarts, c.Probes, c.SelectMax, c.Polish, c.FinalStarts = 0, 0, 0, 0, 0, 0
			c.NeutralWeight, c.NeutralPatience, c.NeutralTwoSided = 0, 0, false // they need restarts too
		},
		func(c *Config) { c.Hidden = 20 },
	} {
		b := c
		bad(&b)
		if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "--size both") {
			t.Errorf("%+v: %v", b, err)
		}
	}
	w := c
	w.Size = "wide"
	if w.Key() == c.Key() {
		t.Error(`"both" and "wide" share a key`)
	}
}

// eqabSpec is the PDA of equal numbers of a and b, whose operation on each
// input depends on the stack's top: its second-order program needs more
// action neurons than symbols.
const eqabSpec = `name: eqab
alphabet: [a, b]
start: q0
accept: [q0]
accept_empty_stack: true
transitions:
  - [q0, a, empty, q0, push]
  - [q0, a, a, q0, push]
  - [q0, a, b, q0, pop]
  - [q0, b, empty, q0, push]
  - [q0, b, b, q0, push]
  - [q0, b, a, q0, pop]
`

// TestActionRuleBuiltins: the action rule "program" sizes the NSPDA's
// action neurons from the PDA's compiled program. The built-in languages'
// programs use one per symbol at both orders, which is what lets
// Normalize drop the rule for them (their stored keys stay); a PDA whose
// second-order operations depend on the top gets more, and an explicit
// actions option wins.
func TestActionRuleBuiltins(t *testing.T) {
	def, _ := Recipe("default")
	if def.ActionRule != "program" {
		t.Fatalf("the default recipe's action rule is %q, want program", def.ActionRule)
	}
	for _, g := range grammar.Names() {
		lang, _ := grammar.Builtin(g)
		for _, order := range []int{2, 3} {
			prog, err := program.Compile(lang.PDA, program.Options{Order: nspda.Order(order)})
			if err != nil {
				t.Fatal(err)
			}
			if prog.Shape.A != lang.PDA.L() {
				t.Errorf("%s at order %d: the program uses %d action neurons, not one per symbol (%d): Normalize must not drop the rule", g, order, prog.Shape.A, lang.PDA.L())
			}
			c := def
			c.Grammar = g
			setOpts(&c, "order", order)
			plain := c
			plain.ActionRule = ""
			if c.Normalize().Key() != plain.Key() {
				t.Errorf("%s at order %d: the action rule changes the key", g, order)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "eqab.yaml")
	if err := os.WriteFile(path, []byte(eqabSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	lang, err := grammar.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		order, actions, want int
		rule                 string
	}{
		{2, 0, 4, "program"}, {3, 0, 2, "program"}, {2, 0, 2, ""}, {2, 3, 3, "program"},
	} {
		c := def
		c.Grammar, c.ActionRule = path, tc.rule
		setOpts(&c, "order", tc.order)
		if tc.actions > 0 {
			setOpts(&c, "actions", tc.actions)
		}
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
		if c.Normalize().ActionRule != tc.rule {
			t.Errorf("Normalize drops the rule of a PDA file")
		}
		got, err := programActions(c, lang)
		if err != nil {
			t.Fatal(err)
		}
		if a, _ := got.Option("actions").(float64); int(a) != tc.want && !(a == 0 && tc.want == lang.PDA.L()) {
			t.Errorf("order %d, rule %q, actions %d: the net gets %v action neurons, want %d", tc.order, tc.rule, tc.actions, a, tc.want)
		}
	}
	b := def
	b.ActionRule = "symbols"
	if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "action rule") {
		t.Errorf("action rule %q: %v", b.ActionRule, err)
	}
	if other := def.WithModel("stack-rnn"); other.Normalize().ActionRule != "" {
		t.Error("Normalize keeps the action rule of a model with no program")
	}
}

// TestPolish: the default recipe polishes with a patience of 50, the
// setting reaches the trainer, and polish without patience or below 0 is
// refused.
func TestPolish(t *testing.T) {
	c, _ := Recipe("serial") // the default's starts, one at a time (the portfolio needs patience)
	set, err := settings(c, []train.Example{{Syms: []int{0, 1}, Label: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Polish != 50 || set.Polish != 50 {
		t.Errorf("default recipe: polish %d, the trainer's %d; want 50", c.Polish, set.Polish)
	}
	for _, r := range []string{"paper", "data", "action"} {
		if p, _ := Recipe(r); p.Polish != 0 {
			t.Errorf("recipe %s polishes (%d)", r, p.Polish)
		}
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.Polish = -1 },
		func(c *Config) {
			c.Patience, c.Restarts, c.Probes, c.SelectMax, c.Size = 0, 0, 0, 0, ""
			c.NeutralWeight, c.NeutralPatience, c.NeutralTwoSided = 0, 0, false
		},
	} {
		b := c
		bad(&b)
		if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "polish needs") {
			t.Errorf("polish %d, patience %d: %v", b.Polish, b.Patience, err)
		}
	}
}

// TestFinalStarts: final starts reach the trainer of the last size only
// (the wide one of the rule "both"), and are refused without patience or
// below 0.
func TestFinalStarts(t *testing.T) {
	c, _ := Recipe("serial") // the default's starts, one at a time (the portfolio needs patience)
	if err := c.Validate(); err != nil || c.FinalStarts != 12 {
		t.Fatalf("default recipe: final starts %d (%v), want 12", c.FinalStarts, err)
	}
	if c.FinalNeutralWeight != 3 {
		t.Errorf("default recipe: final starts' neutral weight %g, want 3", c.FinalNeutralWeight)
	}
	for _, r := range []string{"paper", "data", "action"} {
		if p, _ := Recipe(r); p.FinalStarts != 0 || p.FinalNeutralWeight != 0 {
			t.Errorf("recipe %s has final starts (%d, weight %g)", r, p.FinalStarts, p.FinalNeutralWeight)
		}
	}
	ph := c.sizePhases()
	if len(ph) != 2 || ph[0].FinalStarts != 0 || ph[1].FinalStarts != 12 {
		t.Errorf("size phases' final starts: %d, %d; want 0, 12", ph[0].FinalStarts, ph[len(ph)-1].FinalStarts)
	}
	set, err := settings(ph[1], []train.Example{{Syms: []int{0, 1}, Label: 1}})
	if err != nil || set.Final != 12 {
		t.Errorf("the trainer's final starts: %d (%v), want 12", set.Final, err)
	}
	if one := (Config{Size: "wide", FinalStarts: 3}); one.sizePhases()[0].FinalStarts != 3 {
		t.Error("a one-size run loses its final starts")
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.FinalStarts = -1 },
		func(c *Config) {
			c.Patience, c.Restarts, c.Probes, c.SelectMax, c.Size, c.Polish = 0, 0, 0, 0, "", 0
			c.NeutralWeight, c.NeutralPatience, c.NeutralTwoSided = 0, 0, false
		},
	} {
		b := c
		bad(&b)
		if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "final_starts") {
			t.Errorf("final starts %d, patience %d: %v", b.FinalStarts, b.Patience, err)
		}
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.FinalNeutralWeight = -1 },
		func(c *Config) { c.FinalNeutralWeight = math.NaN() },
		func(c *Config) { c.FinalStarts = 0 },
		func(c *Config) { c.NeutralWeight, c.NeutralPatience, c.NeutralTwoSided = 0, 0, false },
	} {
		b := c
		bad(&b)
		if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "final_neutral_weight") {
			t.Errorf("final neutral weight %g, final starts %d, neutral weight %g: %v", b.FinalNeutralWeight, b.FinalStarts, b.NeutralWeight, err)
		}
	}
	if ph[0].FinalNeutralWeight != 0 || ph[1].FinalNeutralWeight != 3 {
		t.Errorf("size phases' final neutral weights %g, %g; want 0, 3", ph[0].FinalNeutralWeight, ph[1].FinalNeutralWeight)
	}
}

// TestStartEpochs: start_epochs and probe_epochs bound a portfolio's
// starts (train.Settings); each is a new key when set, none when 0, and
// they are refused negative, without portfolio, and probe_epochs without
// probes. The default is serial's starts as a portfolio bounded at 20 and
// 4 epochs, without serial's polish and final starts, with the finish
// (TestFinishConfig).
func TestStartEpochs(t *testing.T) {
	p, err := Recipe("serial")
	if err != nil {
		t.Fatal(err)
	}
	p.Portfolio = true
	def, _ := Recipe("default")
	bounded := p
	bounded.StartEpochs, bounded.ProbeEpochs = 20, 4
	bounded.Polish, bounded.FinalStarts, bounded.FinalNeutralWeight = 0, 0, 0
	bounded.Finish, bounded.FinishRate, bounded.FinishBeta = 0.2, 0.001, 10
	if !reflect.DeepEqual(bounded, def) {
		t.Errorf("the default recipe is not serial's bounded portfolio without last resorts, with the finish:\n%+v\n%+v", def, bounded)
	}
	keys := map[string]bool{p.Key(): true}
	for _, on := range []func(*Config){
		func(c *Config) { c.StartEpochs = 20 },
		func(c *Config) { c.ProbeEpochs = 4 },
		func(c *Config) { c.StartEpochs, c.ProbeEpochs = 20, 4 },
	} {
		c := p
		on(&c)
		if err := c.Validate(); err != nil {
			t.Errorf("start_epochs %d, probe_epochs %d: %v", c.StartEpochs, c.ProbeEpochs, err)
		}
		if keys[c.Key()] {
			t.Errorf("start_epochs %d, probe_epochs %d: a key another configuration has", c.StartEpochs, c.ProbeEpochs)
		}
		keys[c.Key()] = true
		set, err := settings(c, []train.Example{{Syms: []int{0}}})
		if err != nil || set.StartEpochs != c.StartEpochs || set.ProbeEpochs != c.ProbeEpochs {
			t.Errorf("start_epochs %d, probe_epochs %d: settings %d, %d (%v)", c.StartEpochs, c.ProbeEpochs, set.StartEpochs, set.ProbeEpochs, err)
		}
	}
	for _, tc := range []struct {
		bad  func(*Config)
		want string
	}{
		{func(c *Config) { c.StartEpochs = -1 }, "at least 0"},
		{func(c *Config) { c.ProbeEpochs = -1 }, "at least 0"},
		{func(c *Config) { c.StartEpochs, c.Portfolio = 20, false }, "need portfolio"},
		{func(c *Config) { c.ProbeEpochs, c.Portfolio = 4, false }, "need portfolio"},
		{func(c *Config) { c.ProbeEpochs, c.Probes = 4, 0 }, "needs probes"},
	} {
		b := p
		tc.bad(&b)
		if err := b.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want an error with %q, got %v", tc.want, err)
		}
	}
}

// TestFinishConfig: finish, finish_rate and finish_beta reach
// train.Settings.Finish; each changes the key only when set; they are
// refused out of range, without one another, and without a portfolio of
// nspda starts by Adam, where a recipe's finish gives way.
func TestFinishConfig(t *testing.T) {
	p, err := Recipe("serial")
	if err != nil {
		t.Fatal(err)
	}
	p.Portfolio, p.StartEpochs, p.ProbeEpochs = true, 20, 4
	on := p
	on.Finish, on.FinishRate, on.FinishBeta = 0.2, 0.001, 10
	if err := on.Validate(); err != nil {
		t.Fatal(err)
	}
	if on.Key() == p.Key() {
		t.Error("finish did not change the key")
	}
	set, err := settings(on, []train.Example{{Syms: []int{0}}})
	if err != nil || set.Finish != (train.Finish{Near: 0.2, Rate: 0.001, Beta: 10}) {
		t.Errorf("settings' finish %+v (%v)", set.Finish, err)
	}
	for _, tc := range []struct {
		bad  func(*Config)
		want string
	}{
		{func(c *Config) { c.Finish = -0.1 }, "from 0 to 2"},
		{func(c *Config) { c.Finish = math.Inf(1) }, "from 0 to 2"},
		{func(c *Config) { c.Finish = 0 }, "need finish"},
		{func(c *Config) { c.FinishRate = 0 }, "above 0"},
		{func(c *Config) { c.FinishBeta = math.NaN() }, "above 0"},
		{func(c *Config) { c.Portfolio, c.StartEpochs, c.ProbeEpochs = false, 0, 0 }, "needs portfolio"},
		{func(c *Config) { c.Optimizer = "sgd" }, "adam optimizer"},
	} {
		b := on
		tc.bad(&b)
		if err := b.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want an error with %q, got %v", tc.want, err)
		}
	}
	for _, flag := range []Setting{{Key: "portfolio", Value: false, Name: "--opt portfolio"}, {Key: "optimizer", Value: "sgd", Name: "--optimizer"}} {
		cfg, err := Build("default", []Setting{flag})
		if err != nil {
			t.Errorf("%s over the default: %v", flag.Name, err)
			continue
		}
		if cfg.Finish != 0 || cfg.FinishRate != 0 || cfg.FinishBeta != 0 {
			t.Errorf("%s over the default: finish %g, %g, %g; want it to give way", flag.Name, cfg.Finish, cfg.FinishRate, cfg.FinishBeta)
		}
	}
}
