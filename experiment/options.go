package experiment

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/nn"
)

// A configuration holds its model's own options (nn.ModelOptions, made and
// decoded by the model's spec) as their JSON, c.opts: "" for a model that
// has none, else the encoding of the model's options type, so that Configs
// stay values (copies share nothing) and equal options are equal strings.
// On disk they are keys of the configuration's one JSON object, as they
// were when they were Config's own fields (keyLayout).

// options returns the configuration's model options, decoded by its model
// (nil for a model that has none). An option the model does not have is an
// error.
func (c Config) options() (nn.ModelOptions, error) {
	own := model.Options(c.Model)
	if own == nil {
		if c.opts != "" {
			return nil, c.foreign([]byte(c.opts))
		}
		return nil, nil
	}
	if c.opts == "" {
		return own, nil
	}
	if err := nn.DecodeOptions([]byte(c.opts), own, true); err != nil {
		return nil, c.foreign([]byte(c.opts))
	}
	return own, nil
}

// foreign is the error of options b that c's model does not have.
func (c Config) foreign(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("bad options of %s: %v", c.Model, err)
	}
	own := model.Options(c.Model)
	keys := sortedKeys(m)
	for _, k := range keys {
		if !nn.HasOption(own, k) {
			return notOwned(k, c.Model)
		}
	}
	return fmt.Errorf("bad options of %s: %s", c.Model, b)
}

// notOwned is the error of option key given to a model that does not have it.
func notOwned(key, modelName string) error {
	if has := model.Having(key); has != "" {
		return fmt.Errorf("%s applies to the %s model(s) only, not %s", key, has, modelName)
	}
	return fmt.Errorf("no model has an option %q", key)
}

// Set sets the model option key (a JSON key of the model's options: "order",
// "stacks", "no_read_grad", ...) to value, refusing a key the model does not
// have and a value it cannot hold.
func (c *Config) Set(key string, value any) error {
	own, err := c.options()
	if err != nil {
		return err
	}
	if !nn.HasOption(own, key) {
		return notOwned(key, c.Model)
	}
	if err := nn.SetOption(own, key, value); err != nil {
		return err
	}
	return c.setOptions(own)
}

// setOptions stores own as c's options.
func (c *Config) setOptions(own nn.ModelOptions) error {
	if own == nil {
		c.opts = ""
		return nil
	}
	b, err := json.Marshal(own)
	if err != nil {
		return err
	}
	c.opts = string(b)
	return nil
}

// Option returns the model option key as JSON decodes it (a float64, bool
// or string), nil if the model does not have it or leaves it out.
func (c Config) Option(key string) any {
	own, err := c.options()
	if err != nil || own == nil {
		return nil
	}
	b, _ := json.Marshal(own)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m[key]
}

// WithModel returns c for the named model: its options start from the
// model's defaults and keep those of c's that the model has too (the order
// of an NSPDA configuration for the NNPDA, say).
func (c Config) WithModel(name string) Config {
	old := map[string]json.RawMessage{}
	if own, err := c.options(); err == nil && own != nil {
		b, _ := json.Marshal(own)
		_ = json.Unmarshal(b, &old)
	} else if c.opts != "" {
		_ = json.Unmarshal([]byte(c.opts), &old)
	}
	c.Model, c.opts = name, ""
	own := model.Options(name)
	for _, k := range sortedKeys(old) {
		if nn.HasOption(own, k) {
			b, _ := json.Marshal(map[string]json.RawMessage{k: old[k]})
			_ = nn.DecodeOptions(b, own, true)
		}
	}
	_ = c.setOptions(own)
	return c
}

// keyLayout is the order of the keys of a configuration's JSON as they
// were when every model's options were Config's fields; the key of every
// stored run hashes this layout (TestStoredKeys). The model options written
// even at their zero value (legacyZero) are written, as 0 or false, for a
// model that does not have them. A key not listed here (a later setting, or
// an option of a later model) follows the listed ones: the settings in
// Config's order, then the model's options in the order of their type.
var keyLayout = []string{
	"grammar", "model", "order", "hidden", "stacks", "rounding", "hints", "hint_h", "dead_hint",
	"algo", "window", "curriculum", "noise", "noise_scale", "stage_noise", "refine", "eval_refine",
	"lr", "clip", "max_epochs", "seed", "data_seed", "test_seed", "positives", "negatives", "tests",
	"keep_best", "stage2_annealed", "no_read_grad",
	"loss", "next_weight", "lm_weight", "action_weight", "optimizer", "batch", "clip_norm", "init_scale",
	"patience", "plateau", "restarts", "restart_schedule", "first_patience", "probes", "probe_patience",
	"data", "valid_data", "select_data", "test_data", "alphabet",
	"soft_stack", "soft_beta0", "soft_growth", "soft_alternate", "lock_step", "size",
}

// legacyZero are the model options that were Config fields without
// omitempty, and their zero values' JSON.
var legacyZero = map[string]string{"order": "0", "stacks": "0", "rounding": "false", "hints": "0", "hint_h": "0"}

// plainConfig is Config without its JSON methods.
type plainConfig Config

// field is one key and value of a JSON object.
type field struct {
	key string
	val json.RawMessage
}

// MarshalJSON writes the configuration's settings and its model's options
// as one object, in keyLayout.
func (c Config) MarshalJSON() ([]byte, error) {
	g, err := json.Marshal(plainConfig(c))
	if err != nil {
		return nil, err
	}
	general, err := objectFields(g)
	if err != nil {
		return nil, err
	}
	var ownFields []field
	own, err := c.options()
	if err != nil {
		return nil, err
	}
	if own != nil {
		b, err := json.Marshal(own)
		if err != nil {
			return nil, err
		}
		if ownFields, err = objectFields(b); err != nil {
			return nil, err
		}
	}
	for _, k := range sortedKeys(legacyZero) {
		if !slices.ContainsFunc(ownFields, func(f field) bool { return f.key == k }) {
			ownFields = append(ownFields, field{k, json.RawMessage(legacyZero[k])})
		}
	}
	all := append(general, ownFields...) // stable: settings before options
	slices.SortStableFunc(all, func(a, b field) int { return rank(a.key) - rank(b.key) })
	return joinFields(all), nil
}

// rank is key's place in keyLayout, after every listed key if unlisted.
func rank(key string) int {
	if i := slices.Index(keyLayout, key); i >= 0 {
		return i
	}
	return len(keyLayout)
}

// UnmarshalJSON reads a configuration, refusing a key that is neither a
// setting nor an option of its model (a model option another model has is
// accepted at its zero value, which is how configurations of models without
// it were written).
func (c *Config) UnmarshalJSON(b []byte) error {
	fields, err := objectFields(b)
	if err != nil {
		return err
	}
	if fields, err = dropRemoved(fields); err != nil {
		return err
	}
	var general, own []field
	for _, f := range fields {
		probe, _ := json.Marshal(map[string]any{f.key: nil})
		dec := json.NewDecoder(bytes.NewReader(probe))
		dec.DisallowUnknownFields()
		var p plainConfig
		if dec.Decode(&p) == nil {
			general = append(general, f)
		} else {
			own = append(own, f)
		}
	}
	var p plainConfig
	if err := json.Unmarshal(joinFields(general), &p); err != nil {
		return err
	}
	cfg := Config(p)
	opts := model.Options(cfg.Model)
	var mine []field
	for _, f := range own {
		switch {
		case nn.HasOption(opts, f.key):
			mine = append(mine, f)
		case isZero(f.val) && model.Having(f.key) != "":
			// another model's option at its zero value: nothing set
		case model.Having(f.key) != "":
			return notOwned(f.key, cfg.Model)
		default:
			return fmt.Errorf("json: unknown field %q", f.key)
		}
	}
	if opts != nil {
		if err := nn.DecodeOptions(joinFields(mine), opts, true); err != nil {
			return err
		}
	}
	if err := cfg.setOptions(opts); err != nil {
		return err
	}
	*c = cfg
	return nil
}

// isZero reports whether v is the JSON of a zero value.
func isZero(v json.RawMessage) bool {
	switch string(bytes.TrimSpace(v)) {
	case "0", "false", `""`, "null":
		return true
	}
	return false
}

// objectFields returns the keys and values of the JSON object b, in order.
func objectFields(b []byte) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if t != json.Delim('{') {
		return nil, fmt.Errorf("json: cannot unmarshal %v into a configuration", t)
	}
	var out []field
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, field{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}

// joinFields is the JSON object of fields.
func joinFields(fields []field) []byte {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(f.val)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// The options a run asks of its model's options, by optional interface
// (the models' options types implement those that apply to them).
type (
	// hinter: the hint programs of package program (the NSPDA).
	hinter interface {
		Hint() (level int, h float64, order nspda.Order)
	}
	// deadHinter: the dead-state hint of Das, Giles and Sun (the NNPDA).
	deadHinter interface{ DeadStateHint() bool }
	// softScheduler: the superposition stack's sharpness schedule.
	softScheduler interface {
		SoftSchedule() (beta0, growth float64, alternate bool)
	}
	// tensorOrdered: a tensor order (2 or 3).
	tensorOrdered interface{ TensorOrder() int }
)

// hints returns the configuration's hint level, strength and order (0
// without hints).
func (c Config) hints() (level int, h float64, order nspda.Order) {
	if o, err := c.options(); err == nil {
		if hi, ok := o.(hinter); ok {
			return hi.Hint()
		}
	}
	return 0, 0, 0
}

// deadHint reports whether the configuration has the dead-state hint.
func (c Config) deadHint() bool {
	o, _ := c.options()
	d, ok := o.(deadHinter)
	return ok && d.DeadStateHint()
}

// softSchedule returns the sharpness schedule (β0, growth) of the
// configuration and whether starts alternate: (0, 0, false) without the
// soft stack.
func (c Config) softSchedule() (beta0, growth float64, alternate bool) {
	o, _ := c.options()
	if s, ok := o.(softScheduler); ok {
		return s.SoftSchedule()
	}
	return 0, 0, false
}

// TensorOrder is the configuration's tensor order (a model option of the
// NSPDA and the NNPDA), 0 if its model has none.
func (c Config) TensorOrder() int {
	o, _ := c.options()
	if t, ok := o.(tensorOrdered); ok {
		return t.TensorOrder()
	}
	return 0
}
