package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/nn"
)

// A model's own options are set with --opt KEY=VALUE (KEY a JSON key of the
// model's options, as 'nspda models' lists them); an option needs no flag of
// its own. The flags below are the older spellings of some, kept as
// aliases: each sets one option key.

// optionFlag is a flag that sets the model option key; parse reads its
// text (nil: a bool flag).
type optionFlag struct {
	flag, key, usage string
	parse            func(string) (any, error)
}

func parseInt(s string) (any, error)   { return strconv.Atoi(s) }
func parseFloat(s string) (any, error) { return strconv.ParseFloat(s, 64) }

// parseHints reads --hints: none, 1 or 2.
func parseHints(s string) (any, error) {
	switch s {
	case "none", "0":
		return 0, nil
	case "1", "2":
		return int(s[0] - '0'), nil
	}
	return nil, errors.New("want none, 1 or 2")
}

var optionFlags = []optionFlag{
	{"order", "order", "tensor order of nspda, 2 (M1) or 3 (M2), and of the nnpda controller", parseInt},
	{"stacks", "stacks", "stacks (stack-rnn) or lists (list-rnn)", parseInt},
	{"rounding", "rounding", "stack-rnn, list-rnn: hard actions at evaluation", nil},
	{"hints", "hints", "nspda hints: none, 1 or 2", parseHints},
	{"hint-strength", "hint_h", "strength H of the programmed hint weights", parseFloat},
	{"dead-hint", "dead_hint", "nnpda: the dead-state hint of Das, Giles and Sun (stop illegal strings where they die; train the dead neuron on)", nil},
	{"no-read-grad", "no_read_grad", "nspda ablation: no gradient from the read neurons to the action neurons (∂p/∂v* = 0; docs/design.md section 5)", nil},
	{"two-sided", "two_sided", "nspda: the read's derivative by the decisive action neuron from both sides, e(x) − r_below, whatever the action (the default recipe's; docs/design.md section 8)", nil},
	{"soft-stack", "soft_stack", "nspda: train through a superposition stack (push/pop/no-op mixed by the action neurons, sharpness annealed); evaluation stays digital (docs/design.md section 8b)", nil},
	{"soft-beta0", "soft_beta0", "with --soft-stack: initial sharpness β0 (0: 1)", parseFloat},
	{"soft-growth", "soft_growth", fmt.Sprintf("with --soft-stack: factor on β per epoch of each start (0: %g)", nspda.DefaultSoftGrowth), parseFloat},
	{"actions", "actions", "nspda: action neurons (0: one per symbol, the paper's)", parseInt},
	{"soft-alternate", "soft_alternate", "with --soft-stack and --restarts: even starts train on the digital stack, odd ones on the superposition stack (selection chooses)", nil},
	{"soft-straight", "soft_straight", "with --soft-stack: the stack moves by the digital operation and the gradient goes through the superposition stack at β (straight-through)", nil},
}

// show is the flag's text of an option's value (as Config.Option gives
// it; nil: the option's zero value).
func (o optionFlag) show(v any) string {
	switch {
	case o.key == "hints" && (v == nil || v == 0.0):
		return "none"
	case v == nil && o.parse == nil:
		return "false"
	case v == nil:
		return "0"
	}
	return fmt.Sprint(v)
}

// modelOpts are the model options the flags gave, in order.
type modelOpts struct{ list []givenOpt }

type givenOpt struct {
	flag, key string
	value     any
}

// apply sets the options on cfg (whose model is final). An option the model
// does not have is a usage error, unless given at its zero value (--hints
// none for the lstm asks for nothing).
func (p *modelOpts) apply(cfg *experiment.Config) error {
	for _, g := range p.list {
		if !nn.HasOption(model.Options(cfg.Model), g.key) {
			if isZero(g.value) {
				continue
			}
			if has := model.Having(g.key); has != "" {
				return usagef("%s applies to the %s models only, not %s", g.flag, has, cfg.Model)
			}
			return usagef("%s: no model has the option %q", g.flag, g.key)
		}
		if err := cfg.Set(g.key, g.value); err != nil {
			return usagef("%s: %v", g.flag, err)
		}
	}
	return nil
}

// gives reports whether a flag gave the option key.
func (p *modelOpts) gives(key string) bool {
	for _, g := range p.list {
		if g.key == key {
			return true
		}
	}
	return false
}

func isZero(v any) bool {
	switch v := v.(type) {
	case int:
		return v == 0
	case float64:
		return v == 0
	case bool:
		return !v
	case string:
		return v == ""
	}
	return v == nil
}

// optFlag is the pflag.Value of an optionFlag.
type optFlag struct {
	o    optionFlag
	pend *modelOpts
	text string
}

func (v *optFlag) String() string { return v.text }

func (v *optFlag) Type() string {
	if v.o.parse == nil {
		return "bool"
	}
	return "value"
}

func (v *optFlag) Set(s string) error {
	var val any
	var err error
	if v.o.parse == nil {
		val, err = strconv.ParseBool(s)
	} else {
		val, err = v.o.parse(s)
	}
	if err != nil {
		return err
	}
	v.text = s
	v.pend.list = append(v.pend.list, givenOpt{"--" + v.o.flag, v.o.key, val})
	return nil
}

// optList is the pflag.Value of --opt KEY=VALUE (repeated): VALUE is read as
// JSON (2, true, 1.5, "x") or else as a string.
type optList struct{ pend *modelOpts }

func (l *optList) given() []givenOpt {
	var out []givenOpt
	for _, g := range l.pend.list {
		if strings.HasPrefix(g.flag, "--opt ") {
			out = append(out, g)
		}
	}
	return out
}

func (l *optList) String() string { return "[" + strings.Join(l.GetSlice(), ",") + "]" }

func (l *optList) Type() string { return "key=value" }

func (l *optList) Set(s string) error { return l.Append(s) }

func (l *optList) Append(s string) error {
	key, text, ok := strings.Cut(s, "=")
	if !ok || key == "" {
		return errors.New("want KEY=VALUE")
	}
	var val any
	if err := json.Unmarshal([]byte(text), &val); err != nil {
		val = text
	}
	l.pend.list = append(l.pend.list, givenOpt{"--opt " + key, key, val})
	return nil
}

func (l *optList) Replace(ss []string) error {
	kept := l.pend.list[:0]
	for _, g := range l.pend.list {
		if !strings.HasPrefix(g.flag, "--opt ") {
			kept = append(kept, g)
		}
	}
	l.pend.list = kept
	for _, s := range ss {
		if err := l.Append(s); err != nil {
			return err
		}
	}
	return nil
}

func (l *optList) GetSlice() []string {
	var out []string
	for _, g := range l.given() {
		b, _ := json.Marshal(g.value)
		if s, ok := g.value.(string); ok && !json.Valid([]byte(s)) {
			b = []byte(s) // read back as a string (Append)
		}
		out = append(out, strings.TrimPrefix(g.flag, "--opt ")+"="+string(b))
	}
	return out
}
