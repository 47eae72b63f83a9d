package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/nspda/nspda/internal/limits"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/nn"
)

// A Setting is one setting given over a recipe: Key is a configuration key
// (the JSON key of a Config setting, as config.json writes it, or of a
// model option) and Value its value; Name says where it was given (a flag,
// "--opt KEY", FILE:LINE) in messages.
type Setting struct {
	Key   string
	Value any
	Name  string
}

// A recipe is a named starting point of a run: the settings it puts over
// Defaults, in order (a later one wins).
type recipe struct {
	name string
	set  []Setting
	// frozen marks a recipe that stored runs were made with and that is
	// no longer offered (Recipes leaves it out): tables name it for their
	// earlier rows, and --recipe and recipe files still take it.
	frozen bool
}

// learningSettings are the settings the default, action and data recipes share:
// no hints, per-step viability and next-symbol-set targets, Adam on
// minibatches with norm clipping, the standard curriculum, J by the wide
// rule, and selection on longer strings with patience 20 and up to 8
// restarts. (More, shorter starts, patience 5 and 40 restarts, learn the
// third-order palindrome and lose slow learners: docs/training.md.)
var learningSettings = []Setting{
	{Key: "hints", Value: 0},
	{Key: "loss", Value: "viable"}, {Key: "next_weight", Value: 1.0},
	{Key: "optimizer", Value: "adam"}, {Key: "lr", Value: 0.01}, {Key: "batch", Value: 16}, {Key: "clip_norm", Value: 5.0},
	{Key: "curriculum", Value: "standard"}, {Key: "max_epochs", Value: 400}, {Key: "patience", Value: 20}, {Key: "restarts", Value: 8},
	{Key: "size", Value: "wide"},
}

// searchSettings are the default's search, before its starts ran side by
// side: nine long starts (some holding a symbol at the no-op), then up to
// 200 short ones, selected on longer strings, at the small size and then
// the wide one, with edit neighbours in the data.
var searchSettings = join(learningSettings, []Setting{
	// Nine long starts, then up to 200 short starts (probes) of
	// patience 3, selecting on strings of lengths 22–100; the small
	// size (the paper's at third order), then the wide one if no
	// start passes selection.
	{Key: "probes", Value: 200}, {Key: "probe_patience", Value: 3}, {Key: "max_epochs", Value: 1500}, {Key: "select_max", Value: 100},
	{Key: "size", Value: "both"},
	// As many action neurons as the PDA's program needs.
	{Key: "action_rule", Value: "program"},
}, neutralStarts, []Setting{
	// The neutral-symbol starts with the read's derivative from both
	// sides of the action.
	{Key: "neutral_two_sided", Value: true},
	// Members and their one-edit neighbours at every length, not only
	// the lengths with members: nets exact on the paper's sets can
	// still accept aⁿbⁿ⁺¹.
	{Key: "edits", Value: 500},
	// And measured on them, beside the paper's sets: edit960 is
	// beyond every length that training or selection sees.
	{Key: "tests", Value: []string{"test60", "test480", "test960", "edit60", "edit960"}},
})

// neutralStarts are long starts that try each symbol in turn as one that
// leaves the stack alone, with a patience of their own: they find a symbol
// that leaves the stack alone (the b's of aⁿbᵐcⁿ).
var neutralStarts = []Setting{
	{Key: "neutral_weight", Value: 1.0}, {Key: "neutral_patience", Value: 50},
}

// alternatingStacks train the even starts on the digital stack and the
// odd ones on the superposition stack (design.md, "Alternating stacks"):
// from the strings alone, some languages are learned on one only
// (third-order palindromes on the digital stack and its finish, equal
// numbers of a and b on the superposition stack:
// notebook/2026-11-29-data-recipe.md).
var alternatingStacks = []Setting{
	{Key: "soft_stack", Value: true}, {Key: "soft_alternate", Value: true},
}

// portfolioSettings run the starts as a portfolio on every core, the
// lowest-indexed start that passes selection winning, whatever the number
// of workers. A fit comes early in its start or not at all, so a long or
// final start ends after 20 epochs of its own and a probe after 4
// (docs/training.md, "Starts side by side, each bounded").
var portfolioSettings = []Setting{
	{Key: "portfolio", Value: true}, {Key: "start_epochs", Value: 20}, {Key: "probe_epochs", Value: 4},
}

// finishSettings finish a start that ends near a fit (training plus
// select error at most 0.2) from its best weights on the superposition
// stack, at sharpness 10, by Adam at 0.001: on the digital stack such nets
// are thrown out again, since a push is credited only with its next read
// (docs/training.md, "Finish").
var finishSettings = []Setting{
	{Key: "finish", Value: 0.2}, {Key: "finish_rate", Value: 0.001}, {Key: "finish_beta", Value: 10.0},
}

// dataSettings are what needs no automaton in place of the PDA's targets
// (the paper's per-step copied label and the language-model head); the
// small size first, as the default; selection on lengths 22–200; the
// default's short starts after the long ones, at most 1500 epochs a size.
var dataSettings = join(learningSettings, []Setting{
	{Key: "loss", Value: ""}, {Key: "next_weight", Value: 0.0}, {Key: "lm_weight", Value: 1.0},
	{Key: "size", Value: "both"}, {Key: "select_max", Value: 200},
	{Key: "probes", Value: 200}, {Key: "probe_patience", Value: 3}, {Key: "max_epochs", Value: 1500},
})

// lastResorts end a size whose starts all ended imperfect: a last start
// from the best weights, by SGD; then, if the wide size's starts and that
// polish end imperfect, up to 12 more long starts, each holding a symbol at
// the no-op in turn, leaning three times harder on the neutral prior. Only
// the frozen recipes have them: with the finish they fit no built-in run
// and no PDA file in ten minutes (docs/training.md, "No polish, no final
// starts").
var lastResorts = []Setting{
	{Key: "polish", Value: 50}, {Key: "final_starts", Value: 12}, {Key: "final_neutral_weight", Value: 3.0},
}

// serialSettings are the default's starts one at a time, with the last
// resorts: the recipe "serial", the default until its starts ran as a
// portfolio (the tables' earlier default rows name it; their keys are its
// runs').
var serialSettings = join(searchSettings, lastResorts)

// boundedSettings are serial's starts as a bounded portfolio: the recipe
// "bounded", the default before the finish.
var boundedSettings = join(serialSettings, portfolioSettings)

// recipeBook holds the recipes of `nspda train --recipe`; Recipe documents
// each. docs/training.md gives the evidence for each part of them.
var recipeBook = []recipe{
	{name: "default", set: join(searchSettings, portfolioSettings, finishSettings)},
	{name: "paper"},
	// The data recipe searches as the default does, on the data's own
	// targets and with the alternating stacks: the neutral-symbol starts
	// (on the superposition stack without the two-sided derivative, which
	// is the digital stack's), the bounded portfolio and the finish
	// (docs/training.md, "The other recipes").
	{name: "data", set: join(dataSettings, alternatingStacks, neutralStarts, portfolioSettings, finishSettings)},
	{name: "action", set: join(learningSettings, []Setting{
		// Knowledge of one automaton: its stack operations as targets of
		// the action neurons, with M + U(2,6) state neurons at both
		// orders (the paper's third-order rule), which measured best with
		// them (docs/training.md).
		{Key: "action_weight", Value: 1.0}, {Key: "size", Value: "small"},
	})},
	{name: "serial", frozen: true, set: serialSettings},
	{name: "bounded", frozen: true, set: boundedSettings},
	// The data recipe before it searched as the default: its starts one
	// at a time, unbounded, alternating between the digital and the
	// superposition stack (the tables' earlier data rows name it).
	{name: "data-serial", frozen: true, set: join(dataSettings, alternatingStacks)},
}

func join(sets ...[]Setting) []Setting { return slices.Concat(sets...) }

// recipeIndex is the index of the named recipe in recipeBook, −1 if none.
func recipeIndex(name string) int {
	return slices.IndexFunc(recipeBook, func(r recipe) bool { return r.name == name })
}

// IsRecipe reports whether name is a recipe, offered or frozen.
func IsRecipe(name string) bool { return recipeIndex(name) >= 0 }

// Recipes names the recipes offered, the default first (not the frozen
// ones).
func Recipes() []string {
	var names []string
	for _, r := range recipeBook {
		if !r.frozen {
			names = append(names, r.name)
		}
	}
	return names
}

// Recipe returns the named settings: "paper", the paper's protocol as our
// stored grids run it (Defaults), or "default", the combination that
// measured best on validation data (docs/training.md, "What makes the NSPDA
// learn"): no hints, per-step viability and next-symbol-set targets from
// the PDA, Adam with minibatches and norm clipping, the standard
// curriculum, and selection on longer strings with patience, probes and
// restarts, long starts that each pull one input symbol in turn towards
// the no-op, with the read's derivative from both sides of the action, and
// one-edit neighbours of members at every length in the training and
// select sets (Edits); or "data", what needs no automaton in place of the
// PDA's targets: the paper's per-step copied label and the language-model
// head, selection on lengths up to 200, and the default's search (its
// starts, size rule, portfolio and finish) with the starts alternating
// between the digital and the superposition stack; or "action", the
// default's targets and the PDA's stack operations as targets of the
// action neurons, with the small size rule (the paper's at
// third order). The default tries the small size first (M + U(2,6) state
// neurons, the paper's third-order rule) and the wide one only when no
// start passes selection, runs its starts as a bounded portfolio on every
// core, and finishes a start that ends near a fit on the superposition
// stack. Not offered, for the tables' earlier rows: "bounded", the default
// before the finish (without it, and with a polish and final starts as
// last resorts), "serial", its starts one at a time, unbounded, and
// "data-serial", the data recipe's starts one at a time, unbounded,
// alternating between the digital and the superposition stack.
func Recipe(name string) (Config, error) {
	c := Defaults()
	i := recipeIndex(name)
	if i < 0 {
		return c, fmt.Errorf("unknown recipe %q (want %s)", name, strings.Join(Recipes(), " or "))
	}
	for _, s := range recipeBook[i].set {
		if err := c.put(s.Key, s.Value); err != nil {
			return c, fmt.Errorf("recipe %s: %s: %v", name, s.Key, err)
		}
	}
	return c, nil
}

// DefaultHoldOut is the percent of the training strings a run on data
// holds out for selection when there is no select file. On a^n b^n (seeds
// 1–3), no selection left 9% training error after 400 epochs on seed 1;
// the longest tenth held out learned it exactly in 5–10 s.
const DefaultHoldOut = 10

// Build returns the configuration of the named recipe ("": "data" when
// set gives data files, else "default") with set over it, completed and
// checked: the configuration `nspda train` runs. A recipe's setting that
// needs one that set turns off gives way (giveWay), unless set gives it
// too; an error is the first setting that cannot work.
func Build(name string, set []Setting) (Config, error) {
	given := func(key string) bool {
		return slices.ContainsFunc(set, func(s Setting) bool { return s.Key == key })
	}
	if name == "" {
		name = "default"
		if given("data") {
			name = "data"
		}
	}
	c, err := Recipe(name)
	if err != nil {
		return c, err
	}
	var opts []Setting
	for _, s := range set {
		if !IsSetting(s.Key) {
			opts = append(opts, s)
		} else if err := c.put(s.Key, s.Value); err != nil {
			return c, fmt.Errorf("%s: %v", s.Name, err)
		}
	}
	if _, err := model.Lookup(c.Model); err != nil {
		return c, err
	}
	// The recipe's options that the model has (the order of the nnpda),
	// and the defaults of the others.
	c = c.WithModel(c.Model)
	if c.Data != "" {
		if err := c.dataDefaults(given); err != nil {
			return c, err
		}
	}
	if err := c.giveWay(beforeOptions, given); err != nil {
		return c, err
	}
	for _, s := range opts {
		if err := c.setOption(s); err != nil {
			return c, err
		}
	}
	if err := c.giveWay(afterOptions, given); err != nil {
		return c, err
	}
	c = c.Normalize()
	return c, c.Validate()
}

// setOption sets the model option s; an option the model does not have is
// an error, unless given at its zero value (hints 0 for the lstm asks for
// nothing).
func (c *Config) setOption(s Setting) error {
	if !nn.HasOption(model.Options(c.Model), s.Key) {
		if zeroValue(s.Value) {
			return nil
		}
		if has := model.Having(s.Key); has != "" {
			return fmt.Errorf("%s applies to the %s models only, not %s", s.Name, has, c.Model)
		}
		if r, gone := removal(s.Key); gone {
			return fmt.Errorf("%s: %v", s.Name, r.err())
		}
		return fmt.Errorf("%s: no setting or model option has the key %q (--opt help lists them)", s.Name, s.Key)
	}
	if err := c.Set(s.Key, s.Value); err != nil {
		return fmt.Errorf("%s: %v", s.Name, err)
	}
	return nil
}

func zeroValue(v any) bool {
	switch v := v.(type) {
	case int:
		return v == 0
	case float64:
		return v == 0
	case bool:
		return !v
	case string:
		return v == ""
	case json.Number:
		f, err := v.Float64()
		return err == nil && f == 0
	}
	return v == nil
}

// dataDefaults sets what a run on data files has in place of a grammar's:
// its own alphabet, tests and selection (the select file or the held-out
// longest training strings), or, with neither, one start; each unless
// given.
func (c *Config) dataDefaults(given func(string) bool) error {
	if !given("grammar") {
		c.Grammar = ""
	}
	c.Tests = nil
	if !given("select_max") {
		c.SelectMax = 0 // the select strings are the select file's
	}
	if !given("edits") {
		c.Edits = 0 // the strings are the files'
	}
	if c.SelectData == "" && !given("hold_out") && c.Patience > 0 {
		c.HoldOut = DefaultHoldOut // the strings to select on
	}
	if c.SelectData != "" || given("patience") || c.HoldOut != 0 {
		return nil
	}
	c.Patience, c.Restarts = 0, 0
	if !given("probes") {
		c.Probes = 0
	}
	if !given("max_epochs") {
		c.MaxEpochs = 400 // the one start's budget before the recipe took the probes
	}
	// One start, on the digital stack (unless an option given says
	// otherwise).
	for _, k := range []string{"soft_stack", "soft_alternate"} {
		if c.Option(k) != nil {
			if err := c.Set(k, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// A giveWayRule turns off a recipe's setting key, unless given, where the
// configuration no longer has what it needs (needless reports it).
type giveWayRule struct {
	key      string
	needless func(c Config) bool
	off      func(c *Config) error
}

// giveWay applies rules in order: each sees the earlier ones' results.
func (c *Config) giveWay(rules []giveWayRule, given func(string) bool) error {
	for _, r := range rules {
		if !given(r.key) && r.needless(*c) {
			if err := r.off(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// beforeOptions give way before the model options given are set: the
// size rule of a model without one, and a recipe's rule "both", which
// needs selection to choose between its two sizes and no hidden: hidden
// gives J, and without selection the run trains the first size, the small
// one.
var beforeOptions = []giveWayRule{
	{"size", func(c Config) bool { return c.Size != "" && !hasSizeRule(c.Model) },
		func(c *Config) error { c.Size = ""; return nil }},
	{"size", func(c Config) bool { return c.Size == "both" && c.Hidden != 0 },
		func(c *Config) error { c.Size = ""; return nil }},
	{"size", func(c Config) bool { return c.Size == "both" && c.Patience == 0 },
		func(c *Config) error { c.Size = "small"; return nil }},
}

// afterOptions turn off the recipe's settings that need a setting the
// configuration no longer has: patience 0 takes the recipe's restarts,
// probes, polish and final starts with it, probe_patience 0 its probes,
// restarts 0 its neutral-symbol starts, neutral_weight 0 their patience,
// portfolio false its bounds, probes 0 the probes' bound.
// Each is turned off only where Validate would refuse it, so a
// configuration that validates is unchanged, and an error left names a
// setting the user gave. The default recipe's neutral-symbol starts need
// action neurons (the nspda), and its two-sided derivative gives way to the
// superposition stack and the read-gradient ablation, which replace it.
var afterOptions = []giveWayRule{
	{"neutral_weight", func(c Config) bool { return c.NeutralWeight > 0 && c.Model != "nspda" }, func(c *Config) error { c.NeutralWeight = 0; return nil }},
	{"restarts", func(c Config) bool { return c.Patience == 0 && c.Restarts > 0 }, func(c *Config) error { c.Restarts = 0; return nil }},
	{"probes", func(c Config) bool { return (c.Patience == 0 || c.ProbePatience < 1) && c.Probes > 0 }, func(c *Config) error { c.Probes = 0; return nil }},
	{"polish", func(c Config) bool { return c.Patience == 0 && c.Polish > 0 }, func(c *Config) error { c.Polish = 0; return nil }},
	{"final_starts", func(c Config) bool { return c.Patience == 0 && c.FinalStarts > 0 }, func(c *Config) error { c.FinalStarts = 0; return nil }},
	{"select_max", func(c Config) bool { return c.Patience == 0 && c.SelectMax != 0 }, func(c *Config) error { c.SelectMax = 0; return nil }},
	{"own_patience", func(c Config) bool { return (c.Patience == 0 || c.Restarts == 0) && c.OwnPatience }, func(c *Config) error { c.OwnPatience = false; return nil }},
	{"neutral_weight", func(c Config) bool { return (c.Patience == 0 || c.Restarts == 0) && c.NeutralWeight > 0 }, func(c *Config) error { c.NeutralWeight = 0; return nil }},
	// The data recipe's alternating stacks need the superposition stack
	// and restarts.
	{"soft_alternate", func(c Config) bool {
		return c.Option("soft_alternate") == true && (c.Restarts == 0 || c.Option("soft_stack") != true)
	}, func(c *Config) error { return c.Set("soft_alternate", false) }},
	{"neutral_patience", func(c Config) bool { return c.NeutralWeight == 0 && c.NeutralPatience > 0 }, func(c *Config) error { c.NeutralPatience = 0; return nil }},
	{"neutral_two_sided", func(c Config) bool { return c.NeutralWeight == 0 && c.NeutralTwoSided }, func(c *Config) error { c.NeutralTwoSided = false; return nil }},
	{"final_neutral_weight", func(c Config) bool { return (c.NeutralWeight == 0 || c.FinalStarts == 0) && c.FinalNeutralWeight > 0 }, func(c *Config) error { c.FinalNeutralWeight = 0; return nil }},
	{"neutral_two_sided", func(c Config) bool {
		return c.NeutralTwoSided && (c.Option("soft_stack") == true || c.Option("no_read_grad") == true)
	}, func(c *Config) error { c.NeutralTwoSided = false; return nil }},
	// The default's portfolio needs patience, and its bounds the portfolio
	// (and the probe bound probes).
	{"portfolio", func(c Config) bool { return c.Portfolio && c.Patience == 0 }, func(c *Config) error { c.Portfolio = false; return nil }},
	{"start_epochs", func(c Config) bool { return c.StartEpochs > 0 && !c.Portfolio }, func(c *Config) error { c.StartEpochs = 0; return nil }},
	{"probe_epochs", func(c Config) bool { return c.ProbeEpochs > 0 && (!c.Portfolio || c.Probes == 0) }, func(c *Config) error { c.ProbeEpochs = 0; return nil }},
	// The finish needs a portfolio of nspda starts by Adam, and its rate and
	// sharpness; they need the finish.
	{"finish", func(c Config) bool {
		return c.Finish > 0 && (!c.finishable() || c.FinishRate == 0 || c.FinishBeta == 0)
	}, func(c *Config) error { c.Finish = 0; return nil }},
	{"finish_rate", func(c Config) bool { return c.Finish == 0 && c.FinishRate != 0 }, func(c *Config) error { c.FinishRate = 0; return nil }},
	{"finish_beta", func(c Config) bool { return c.Finish == 0 && c.FinishBeta != 0 }, func(c *Config) error { c.FinishBeta = 0; return nil }},
}

// hasSizeRule reports whether the named model has a size rule (nn.Spec.Size).
func hasSizeRule(name string) bool {
	spec, err := model.Lookup(name)
	return err == nil && spec.Size != nil
}

// settingFields maps each configuration setting's JSON key to its field of
// Config.
var settingFields = func() map[string]int {
	m := map[string]int{}
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "-" {
			name = t.Field(i).Tag.Get("setting") // a setting config.json does not hold
		}
		if name != "" && name != "-" {
			m[name] = i
		}
	}
	return m
}()

// IsSetting reports whether key is the JSON key of a configuration setting
// (not a model option).
func IsSetting(key string) bool {
	_, ok := settingFields[key]
	return ok
}

// SettingKeys lists the configuration settings' JSON keys, in config.json's
// order.
func SettingKeys() []string {
	keys := make([]string, 0, len(settingFields))
	for k := range settingFields {
		keys = append(keys, k)
	}
	slices.SortStableFunc(keys, func(a, b string) int { return settingFields[a] - settingFields[b] })
	return keys
}

// Get returns the setting key's value (a Config field's, typed as the
// field is), false if key is no setting.
func (c Config) Get(key string) (any, bool) {
	i, ok := settingFields[key]
	if !ok {
		return nil, false
	}
	return reflect.ValueOf(c).Field(i).Interface(), true
}

// put sets the setting or, if key is none, the model option key to v.
func (c *Config) put(key string, v any) error {
	if !IsSetting(key) {
		return c.Set(key, v)
	}
	return c.setField(key, v)
}

// setField sets the setting key to v: a value of the field's type as it
// is, text (a flag's, or an option's that is not JSON) as the field's type
// reads it, anything else through its JSON (a number of JSON or YAML).
func (c *Config) setField(key string, v any) error {
	f := reflect.ValueOf(c).Elem().Field(settingFields[key])
	if rv := reflect.ValueOf(v); rv.IsValid() && rv.Type() == f.Type() {
		if list, ok := v.([]string); ok {
			rv = reflect.ValueOf(slices.Clone(list)) // the recipe's own stays
		}
		f.Set(rv)
		return nil
	}
	if s, ok := v.(string); ok && f.Kind() != reflect.String {
		return parseField(f, s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("cannot hold %v", v)
	}
	p := reflect.New(f.Type())
	if err := json.Unmarshal(b, p.Interface()); err != nil {
		return fmt.Errorf("takes %s values, not %s", kindName(f.Type()), b)
	}
	f.Set(p.Elem())
	return nil
}

// parseField sets f from the text s.
func parseField(f reflect.Value, s string) error {
	var err error
	switch f.Kind() {
	case reflect.Int:
		var n int64
		n, err = strconv.ParseInt(s, 10, 0)
		f.SetInt(n)
	case reflect.Uint64:
		var n uint64
		n, err = strconv.ParseUint(s, 10, 64)
		f.SetUint(n)
	case reflect.Float64:
		var x float64
		x, err = strconv.ParseFloat(s, 64)
		f.SetFloat(x)
	case reflect.Bool:
		var b bool
		b, err = strconv.ParseBool(s)
		f.SetBool(b)
	case reflect.Slice:
		var list []string
		if s != "" {
			list = strings.Split(s, ",")
		}
		f.Set(reflect.ValueOf(list))
	}
	if err != nil {
		return fmt.Errorf("takes %s values, not %q", kindName(f.Type()), s)
	}
	return nil
}

// kindName names the values of a setting's type in messages.
func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int:
		return "integer"
	case reflect.Uint64:
		return "unsigned integer"
	case reflect.Float64:
		return "number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "list"
	}
	return "text"
}

// RecipeFileBytes bounds the size of a recipe file.
const RecipeFileBytes = 1 << 20

// A recipe file is YAML: the recipe it starts from and the settings it puts
// over it, by their configuration keys (config.json's, and the model
// options'), e.g.
//
//	base: default
//	set:
//	  polish: 0
//	  edits: 0
//	  soft_stack: true
//
// base may be left out (the default recipe, or data's for data files).
type recipeDoc struct {
	Base yaml.Node `yaml:"base"`
	Set  yaml.Node `yaml:"set"`
}

// ReadRecipeFile reads the recipe file at path: its base recipe's name and
// its settings, each named FILE:LINE: KEY for messages. An error names the
// file, the line and the key or value that is wrong.
func ReadRecipeFile(path string) (base string, set []Setting, err error) {
	b, err := limits.ReadFile(path, "recipe file", RecipeFileBytes)
	if err != nil {
		return "", nil, err
	}
	at := func(line int, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", path, line, fmt.Sprintf(format, args...))
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var doc recipeDoc
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return "", nil, at(1, "empty recipe file (want a mapping with keys base and set)")
		}
		line, msg := recipeYAMLError(err)
		return "", nil, at(line, "%s", msg)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return "", nil, at(extra.Line, "more than one YAML document (want one mapping with keys base and set)")
	case !errors.Is(err, io.EOF):
		line, msg := recipeYAMLError(err)
		return "", nil, at(line, "%s", msg)
	}
	if doc.Base.Kind != 0 {
		if doc.Base.Kind != yaml.ScalarNode || !IsRecipe(doc.Base.Value) {
			return "", nil, at(doc.Base.Line, "base: want a recipe's name: %s", strings.Join(Recipes(), ", "))
		}
		base = doc.Base.Value
	}
	set, err = recipeSettings(doc.Set, path, at)
	return base, set, err
}

// recipeSettings reads the mapping of a recipe file's set.
func recipeSettings(n yaml.Node, path string, at func(int, string, ...any) error) ([]Setting, error) {
	if n.Kind == 0 {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, at(n.Line, "set: want a mapping of settings (KEY: VALUE)")
	}
	var set []Setting
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		switch {
		case k.Kind != yaml.ScalarNode:
			return nil, at(k.Line, "set: want a setting's key")
		case !IsSetting(key) && model.Having(key) == "":
			if r, gone := removal(key); gone {
				return nil, at(k.Line, "%v", r.err())
			}
			return nil, at(k.Line, "unknown setting %q (nspda train --opt help lists them)", key)
		case slices.ContainsFunc(set, func(s Setting) bool { return s.Key == key }):
			return nil, at(k.Line, "%s is set twice", key)
		}
		var val any
		if err := v.Decode(&val); err != nil || val == nil {
			return nil, at(v.Line, "%s: want a value", key)
		}
		if list, ok := val.([]any); ok {
			val = stringList(list)
		}
		set = append(set, Setting{Key: key, Value: val, Name: fmt.Sprintf("%s:%d: %s", path, k.Line, key)})
	}
	return set, nil
}

// stringList is list as strings when each is one (test files, tests),
// else list.
func stringList(list []any) any {
	out := make([]string, len(list))
	for i, v := range list {
		s, ok := v.(string)
		if !ok {
			return list
		}
		out[i] = s
	}
	return out
}

var (
	yamlLineError  = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	yamlUnknownKey = regexp.MustCompile(`^field (\S+) not found in type`)
)

// recipeYAMLError returns the line and problem of a YAML error of a recipe
// file. yaml's parser (not its scanner) counts lines from 0.
func recipeYAMLError(err error) (int, string) {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	m := yamlLineError.FindStringSubmatch(strings.ReplaceAll(msg, "\n", " "))
	if m == nil {
		return 1, "malformed YAML: " + strings.TrimPrefix(msg, "yaml: ")
	}
	line, _ := strconv.Atoi(m[1])
	if u := yamlUnknownKey.FindStringSubmatch(m[2]); u != nil {
		return line, fmt.Sprintf("unknown key %q (want base and set)", u[1])
	}
	if te != nil {
		return line, "want a mapping with keys base and set"
	}
	if strings.HasPrefix(m[2], "did not find expected") {
		line++
	}
	return line, "malformed YAML: " + m[2]
}
