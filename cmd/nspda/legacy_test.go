package main

// The train command's flags and recipes as they were before the recipes
// became data (experiment/recipe.go) and the rarely used knobs left the
// flag set: the oracle of TestTrainConfigsUnchanged, which holds that every
// combination of the old flags makes the same configuration (the same key)
// through --opt as it did through its own flag.

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/train"
)

// A model's own options are set with --opt KEY=VALUE (KEY a JSON key of the
// model's options, as 'nspda models' lists them); an option needs no flag of
// its own. The flags below are the older spellings of some, kept as
// aliases: each sets one option key.

// legacyOptionFlag is a flag that sets the model option key; parse reads its
// text (nil: a bool flag).
type legacyOptionFlag struct {
	flag, key, usage string
	parse            func(string) (any, error)
}

func legacyParseInt(s string) (any, error)   { return strconv.Atoi(s) }
func legacyParseFloat(s string) (any, error) { return strconv.ParseFloat(s, 64) }

// legacyParseHints reads --hints: none, 1 or 2.
func legacyParseHints(s string) (any, error) {
	switch s {
	case "none", "0":
		return 0, nil
	case "1", "2":
		return int(s[0] - '0'), nil
	}
	return nil, errors.New("want none, 1 or 2")
}

var legacyOptionFlags = []legacyOptionFlag{
	{"order", "order", "tensor order of nspda, 2 (M1) or 3 (M2), and of the nnpda controller", legacyParseInt},
	{"stacks", "stacks", "stacks (stack-rnn) or lists (list-rnn)", legacyParseInt},
	{"rounding", "rounding", "stack-rnn, list-rnn: hard actions at evaluation", nil},
	{"hints", "hints", "nspda hints: none, 1 or 2", legacyParseHints},
	{"hint-strength", "hint_h", "strength H of the programmed hint weights", legacyParseFloat},
	{"dead-hint", "dead_hint", "nnpda: the dead-state hint of Das, Giles and Sun (stop illegal strings where they die; train the dead neuron on)", nil},
	{"no-read-grad", "no_read_grad", "nspda ablation: no gradient from the read neurons to the action neurons (∂p/∂v* = 0; docs/design.md section 5)", nil},
	{"two-sided", "two_sided", "nspda: the read's derivative by the decisive action neuron from both sides, e(x) − r_below, whatever the action (the default recipe's; docs/design.md section 8)", nil},
	{"soft-stack", "soft_stack", "nspda: train through a superposition stack (push/pop/no-op mixed by the action neurons, sharpness annealed); evaluation stays digital (docs/design.md section 8b)", nil},
	{"soft-beta0", "soft_beta0", "with --soft-stack: initial sharpness β0 (0: 1)", legacyParseFloat},
	{"soft-growth", "soft_growth", fmt.Sprintf("with --soft-stack: factor on β per epoch of each start (0: %g)", nspda.DefaultSoftGrowth), legacyParseFloat},
	{"actions", "actions", "nspda: action neurons (0: one per symbol, the paper's)", legacyParseInt},
	{"soft-alternate", "soft_alternate", "with --soft-stack and --restarts: even starts train on the digital stack, odd ones on the superposition stack (selection chooses)", nil},
	{"soft-straight", "soft_straight", "with --soft-stack: the stack moves by the digital operation and the gradient goes through the superposition stack at β (straight-through)", nil},
}

// show is the flag's text of an option's value (as Config.Option gives
// it; nil: the option's zero value).
func (o legacyOptionFlag) show(v any) string {
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

// legacyModelOpts are the model options the flags gave, in order.
type legacyModelOpts struct{ list []legacyGivenOpt }

type legacyGivenOpt struct {
	flag, key string
	value     any
}

// apply sets the options on cfg (whose model is final). An option the model
// does not have is a usage error, unless given at its zero value (--hints
// none for the lstm asks for nothing).
func (p *legacyModelOpts) apply(cfg *experiment.Config) error {
	for _, g := range p.list {
		if !nn.HasOption(model.Options(cfg.Model), g.key) {
			if legacyIsZero(g.value) {
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
func (p *legacyModelOpts) gives(key string) bool {
	for _, g := range p.list {
		if g.key == key {
			return true
		}
	}
	return false
}

func legacyIsZero(v any) bool {
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

// legacyOptFlag is the pflag.Value of an legacyOptionFlag.
type legacyOptFlag struct {
	o    legacyOptionFlag
	pend *legacyModelOpts
	text string
}

func (v *legacyOptFlag) String() string { return v.text }

func (v *legacyOptFlag) Type() string {
	if v.o.parse == nil {
		return "bool"
	}
	return "value"
}

func (v *legacyOptFlag) Set(s string) error {
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
	v.pend.list = append(v.pend.list, legacyGivenOpt{"--" + v.o.flag, v.o.key, val})
	return nil
}

// legacyOptList is the pflag.Value of --opt KEY=VALUE (repeated): VALUE is read as
// JSON (2, true, 1.5, "x") or else as a string.
type legacyOptList struct{ pend *legacyModelOpts }

func (l *legacyOptList) given() []legacyGivenOpt {
	var out []legacyGivenOpt
	for _, g := range l.pend.list {
		if strings.HasPrefix(g.flag, "--opt ") {
			out = append(out, g)
		}
	}
	return out
}

func (l *legacyOptList) String() string { return "[" + strings.Join(l.GetSlice(), ",") + "]" }

func (l *legacyOptList) Type() string { return "key=value" }

func (l *legacyOptList) Set(s string) error { return l.Append(s) }

func (l *legacyOptList) Append(s string) error {
	key, text, ok := strings.Cut(s, "=")
	if !ok || key == "" {
		return errors.New("want KEY=VALUE")
	}
	var val any
	if err := json.Unmarshal([]byte(text), &val); err != nil {
		val = text
	}
	l.pend.list = append(l.pend.list, legacyGivenOpt{"--opt " + key, key, val})
	return nil
}

func (l *legacyOptList) Replace(ss []string) error {
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

func (l *legacyOptList) GetSlice() []string {
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

// legacyBindConfigFlags binds the training flags that set a configuration to
// cfg's fields, with cfg's values as defaults; the model options (--opt
// KEY=VALUE and the option flags, legacyOptionFlags) are gathered in pend, to be
// set once the model is known (legacyCheckTrainFlags).
func legacyBindConfigFlags(f *pflag.FlagSet, cfg *experiment.Config, pend *legacyModelOpts) {
	f.StringVar(&cfg.Grammar, "grammar", cfg.Grammar, "grammar: a built-in name or a PDA .yaml file")
	f.StringVar(&cfg.Model, "model", cfg.Model, "model to train (see 'nspda models')")
	f.IntVar(&cfg.Hidden, "hidden", cfg.Hidden, "state or hidden units (default: the paper's rule for nspda, the model's default otherwise)")
	f.Var(&legacyOptList{pend}, "opt", "a model option KEY=VALUE (repeat; 'nspda models' lists each model's options and defaults)")
	for _, o := range legacyOptionFlags {
		v := &legacyOptFlag{o: o, pend: pend, text: o.show(cfg.Option(o.key))}
		fl := f.VarPF(v, o.flag, "", o.usage)
		if o.parse == nil {
			fl.NoOptDefVal = "true"
		}
	}
	f.StringVar(&cfg.Algo, "algo", cfg.Algo, "gradient estimator: "+train.EstimatorList()+" (default: the model's)")
	f.IntVar(&cfg.Window, "window", cfg.Window, "tbptt window, in symbols")
	f.StringVar(&cfg.Curriculum, "curriculum", cfg.Curriculum, "curriculum: standard, il or 2il")
	f.Float64Var(&cfg.Noise, "noise", cfg.Noise, "adaptive noise regularizer: percent of matrices perturbed (0: off)")
	f.Float64Var(&cfg.StageNoise, "stage-noise", cfg.StageNoise, "2il: weight noise of the second stage, percent of matrices (the regularizer's, if --noise is higher)")
	f.Float64Var(&cfg.NoiseScale, "noise-scale", cfg.NoiseScale, "scale β of the noise regularizer")
	f.IntVar(&cfg.Refine, "refine", cfg.Refine, "iterative refinement K")
	f.IntVar(&cfg.EvalRefine, "eval-refine", cfg.EvalRefine, "iterations per symbol when classifying (default: K)")
	f.Float64Var(&cfg.LR, "lr", cfg.LR, "initial learning rate")
	f.IntVar(&cfg.MaxEpochs, "max-epochs", cfg.MaxEpochs, "most epochs of a size's starts (each size's, with --size both); a polish (--polish) adds at most min(2×--polish, this) and the final starts (--final-starts) at most this many: the progress lines count to the run's most")
	f.BoolVar(&cfg.Stage2Annealed, "stage2-annealed", cfg.Stage2Annealed, "2il: the second stage's fixed rate is the one stage 1's annealing reached, not --lr")
	f.BoolVar(&cfg.KeepBest, "keep-best", cfg.KeepBest, "end with the weights of the epoch best on the whole validation set (default: the last epoch's, as Algorithm 1)")
	f.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of initialization and training")
	f.Uint64Var(&cfg.DataSeed, "data-seed", cfg.DataSeed, "seed of the training and validation data")
	f.StringVar(&cfg.Loss, "loss", cfg.Loss, "output loss: label (the paper's, every step), final (the end marker only) or viable (each prefix: can it still become a member? from the PDA)")
	f.Float64Var(&cfg.NextWeight, "next-weight", cfg.NextWeight, "weight of the next-symbol-set head (targets from the PDA; 0: off)")
	f.Float64Var(&cfg.LMWeight, "lm-weight", cfg.LMWeight, "weight of the language-model head (next symbol of members; 0: off)")
	f.Float64Var(&cfg.ActionWeight, "action-weight", cfg.ActionWeight, "nspda: weight of the action loss (the PDA's stack operations as targets; 0: off)")
	f.Float64Var(&cfg.NeutralWeight, "neutral-weight", cfg.NeutralWeight, "nspda, with --restarts: weight of a prior pulling the action neurons towards the no-op on one input symbol a long start, each symbol in turn, none on starts 0, L+1, … and the probes (needs no PDA; 0: off)")
	f.BoolVar(&cfg.NeutralTwoSided, "neutral-two-sided", cfg.NeutralTwoSided, "with --neutral-weight: the starts with a neutral symbol take the read's two-sided derivative (--two-sided for those starts)")
	f.IntVar(&cfg.NeutralPatience, "neutral-patience", cfg.NeutralPatience, "with --neutral-weight: a start with a neutral symbol ends after this many epochs without a better score of its own (0: --patience, against every start so far)")
	f.StringVar(&cfg.Optimizer, "optimizer", cfg.Optimizer, "optimizer: sgd (the paper's) or adam")
	f.IntVar(&cfg.Batch, "batch", cfg.Batch, "strings per update (0: one)")
	f.Float64Var(&cfg.ClipNorm, "clip-norm", cfg.ClipNorm, "bound on each update's gradient norm (0: off)")
	f.IntVar(&cfg.Patience, "patience", cfg.Patience, "train past convergence, keep the weights best on training + the select split (lengths 22 to --select-max), stop after this many epochs without improvement (0: stop at convergence)")
	f.StringVar(&cfg.Data, "data", cfg.Data, "train on this JSONL file of labelled strings, with no grammar (data-only supervision; recipe data)")
	f.StringVar(&cfg.ValidData, "valid", cfg.ValidData, "with --data: the validation file")
	f.StringVar(&cfg.SelectData, "select", cfg.SelectData, "with --data: the file of longer strings to select weights on (--patience)")
	f.StringSliceVar(&cfg.TestData, "test", cfg.TestData, "with --data: test files (repeat or comma-separate); errors are reported per file and per length band")
	f.IntVar(&cfg.HoldOut, "hold-out", cfg.HoldOut, fmt.Sprintf("with --data and no --select: select weights on this percent of the training strings, the longest, held out of training (default %d; 0: no selection, one start)", legacyDefaultHoldOut))
	f.StringVar(&cfg.Alphabet, "alphabet", cfg.Alphabet, "with --data: the alphabet in order (default: every symbol of the files, sorted)")
	f.Float64Var(&cfg.FinalNeutralWeight, "final-neutral-weight", cfg.FinalNeutralWeight, "with --neutral-weight and --final-starts: the neutral prior's weight on the final starts (0: --neutral-weight)")
	f.IntVar(&cfg.FinalStarts, "final-starts", cfg.FinalStarts, "with --patience: when the run's weights are still not perfect after its starts (or --max-epochs) and the polish (of the wide size, with --size both), up to this many more long starts, each holding a symbol at the no-op in turn (0: off)")
	f.IntVar(&cfg.Restarts, "restarts", cfg.Restarts, "with --patience: start again from new weights up to this many times while the best weights are not perfect")
	f.IntVar(&cfg.Probes, "probes", cfg.Probes, "with --patience: short starts after the --restarts long ones (for a policy a start finds at once or never)")
	f.IntVar(&cfg.ProbePatience, "probe-patience", cfg.ProbePatience, "with --probes: the probes' patience")
	f.IntVar(&cfg.Polish, "polish", cfg.Polish, "with --patience: when no start ends with perfect weights, one more start from the best weights (the heads' weights 0), by SGD at the paper's stochastic rate from --lr, ending after this many epochs without improvement or twice as many in all (0: off)")
	f.BoolVar(&cfg.OwnPatience, "own-patience", cfg.OwnPatience, "with --restarts: a long start ends after --patience epochs without a better score of its own, not of every start so far")
	f.IntVar(&cfg.SelectMax, "select-max", cfg.SelectMax, "with --patience: the select split's longest string (0: 40)")
	f.IntVar(&cfg.Edits, "edits", cfg.Edits, "on a grammar: add N members and N one-edit neighbours of members (one symbol inserted or deleted, at any length) of lengths 1..21 to the training set, and 200 + 200 of the select split's lengths to the select set; not the paper's: they show the lengths where the language has no member (0: off)")
	f.StringVar(&cfg.ActionRule, "action-rule", cfg.ActionRule, "nspda on a grammar: program gives the net as many action neurons as the PDA's compiled program uses at its order, if more than one per symbol (the default recipe's); empty: one per symbol, the paper's")
	f.StringVar(&cfg.Size, "size", cfg.Size, "nspda: the rule that draws J when --hidden is not given: paper (M + U(2,6) at third order, M + U(12,29) at second), wide (M + U(12,29) at both orders), small (M + U(2,6) at both orders: the action recipe's), or both (the small one, then, if no start passes selection, the wide one: the default and data recipes'; needs --patience; a recipe's both gives way to --hidden, and without --patience to small)")
	f.BoolVar(&cfg.LockStep, "lock-step", cfg.LockStep, "nspda, bptt, --batch > 1: train each minibatch in lock-step on the batched kernels (faster with GOEXPERIMENT=simd builds; other read draws, so another run; docs/performance.md)")
}

// legacyApplyRecipe returns the named recipe with every configuration flag the
// user gave applied on top (the flags were parsed into a config that began
// from the default recipe), and the model options they give.
func legacyApplyRecipe(cmd *cobra.Command, name string) (experiment.Config, *legacyModelOpts, error) {
	pend := new(legacyModelOpts)
	base, err := legacyRecipe(name)
	if err != nil {
		return base, pend, usageError{err}
	}
	fs := pflag.NewFlagSet("recipe", pflag.ContinueOnError)
	legacyBindConfigFlags(fs, &base, pend)
	var ferr error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		to := fs.Lookup(f.Name)
		switch v, ok := f.Value.(pflag.SliceValue); {
		case to == nil || ferr != nil:
		case ok:
			ferr = to.Value.(pflag.SliceValue).Replace(v.GetSlice())
		default:
			ferr = fs.Set(f.Name, f.Value.String())
		}
	})
	return base, pend, ferr
}

// displayFlags are the flags of train that change only what it prints; any
// legacyDefaultHoldOut is the percent of the training strings train --data holds
// out for selection when there is no --select. On a^n b^n (seeds 1–3),
// no selection left 9% training error after 400 epochs on seed 1; the
// longest tenth held out learned it exactly in 5–10 s.
const legacyDefaultHoldOut = 10

// legacyDataDefaults sets what a run on data files has in place of a grammar's:
// its own alphabet, tests and selection (the --select file or the held-out
// longest training strings), or, with neither, one start.
func legacyDataDefaults(cfg *experiment.Config, changed func(string) bool) error {
	// No automaton: the data's own alphabet, tests and selection.
	if !changed("grammar") {
		cfg.Grammar = ""
	}
	cfg.Tests = nil
	if !changed("select-max") {
		cfg.SelectMax = 0 // the select strings are --select's
	}
	if !changed("edits") {
		cfg.Edits = 0 // the strings are the files'
	}
	if cfg.SelectData == "" && !changed("hold-out") && cfg.Patience > 0 {
		cfg.HoldOut = legacyDefaultHoldOut // the strings to select on
	}
	if cfg.SelectData == "" && !changed("patience") && cfg.HoldOut == 0 {
		cfg.Patience, cfg.Restarts = 0, 0
		if !changed("probes") {
			cfg.Probes = 0
		}
		if !changed("max-epochs") {
			cfg.MaxEpochs = 400 // the one start's budget before the recipe took the probes
		}
		// one start, on the digital stack (unless an option flag
		// below says otherwise)
		for _, k := range []string{"soft_stack", "soft_alternate"} {
			if cfg.Option(k) != nil {
				if err := cfg.Set(k, false); err != nil {
					return usageError{err}
				}
			}
		}
	}
	return nil
}

// legacyCheckTrainFlags completes cfg from the flags that need interpreting and
// refuses a configuration that cannot work or options that do not apply
// to the model (usage errors).
func legacyCheckTrainFlags(cmd *cobra.Command, cfg *experiment.Config, pend *legacyModelOpts) error {
	changed := cmd.Flags().Changed
	spec, err := model.Lookup(cfg.Model)
	if err != nil {
		return usageError{err}
	}
	// The recipe's options that the model has (the order of the nnpda),
	// and the defaults of the others.
	*cfg = cfg.WithModel(cfg.Model)
	if cfg.Data != "" {
		if err := legacyDataDefaults(cfg, changed); err != nil {
			return err
		}
	}
	if spec.Size == nil && !changed("size") {
		cfg.Size = ""
	}
	// A recipe's size rule "both" needs selection to choose between its two
	// sizes and no --hidden: --hidden gives J, and without selection the run
	// trains the first size, the small one.
	if cfg.Size == "both" && !changed("size") {
		switch {
		case cfg.Hidden != 0:
			cfg.Size = ""
		case cfg.Patience == 0:
			cfg.Size = "small"
		}
	}
	if err := pend.apply(cfg); err != nil {
		return err
	}
	// The default recipe's neutral-symbol starts need action neurons and a
	// run of several starts, and its two-sided derivative gives way to the
	// superposition stack and the read-gradient ablation, which replace it.
	// (legacyGiveWay turns off what needs the neutral weight.)
	if !changed("neutral-weight") && cfg.NeutralWeight > 0 && cfg.Model != "nspda" {
		cfg.NeutralWeight = 0
	}
	if err := legacyGiveWay(cfg, changed, pend); err != nil {
		return err
	}
	if !changed("neutral-two-sided") && cfg.NeutralTwoSided && (cfg.Option("soft_stack") == true || cfg.Option("no_read_grad") == true) {
		cfg.NeutralTwoSided = false
	}
	*cfg = cfg.Normalize()
	if err := cfg.Validate(); err != nil {
		return usageError{err}
	}
	return nil
}

// legacyGiveWay turns off the recipe's settings (never one a flag gave) that
// need a setting the configuration no longer has: --patience 0 takes the
// recipe's restarts, probes, polish and final starts with it,
// --probe-patience 0 its probes, --restarts 0
// its neutral-symbol starts, --neutral-weight 0 their patience. Each is
// turned off only where Validate would refuse it, so a configuration that
// validates is unchanged, and an error left names a flag the user gave.
// Later steps see the earlier ones' results (patience, then restarts,
// then the neutral weight).
func legacyGiveWay(cfg *experiment.Config, changed func(string) bool, pend *legacyModelOpts) error {
	off := func(flag string, on bool, clear func()) {
		if on && !changed(flag) {
			clear()
		}
	}
	noPatience := cfg.Patience == 0
	off("restarts", noPatience && cfg.Restarts > 0, func() { cfg.Restarts = 0 })
	off("probes", (noPatience || cfg.ProbePatience < 1) && cfg.Probes > 0, func() { cfg.Probes = 0 })
	off("polish", noPatience && cfg.Polish > 0, func() { cfg.Polish = 0 })
	off("final-starts", noPatience && cfg.FinalStarts > 0, func() { cfg.FinalStarts = 0 })
	off("select-max", noPatience && cfg.SelectMax != 0, func() { cfg.SelectMax = 0 })
	noRestarts := cfg.Restarts == 0
	off("own-patience", (noPatience || noRestarts) && cfg.OwnPatience, func() { cfg.OwnPatience = false })
	off("neutral-weight", (noPatience || noRestarts) && cfg.NeutralWeight > 0, func() { cfg.NeutralWeight = 0 })
	// The data recipe's alternating stacks need the superposition stack and
	// restarts.
	if cfg.Option("soft_alternate") == true && (noRestarts || cfg.Option("soft_stack") != true) && !pend.gives("soft_alternate") {
		if err := cfg.Set("soft_alternate", false); err != nil {
			return usageError{err}
		}
	}
	noNeutral := cfg.NeutralWeight == 0
	off("neutral-patience", noNeutral && cfg.NeutralPatience > 0, func() { cfg.NeutralPatience = 0 })
	off("neutral-two-sided", noNeutral && cfg.NeutralTwoSided, func() { cfg.NeutralTwoSided = false })
	off("final-neutral-weight", (noNeutral || cfg.FinalStarts == 0) && cfg.FinalNeutralWeight > 0, func() { cfg.FinalNeutralWeight = 0 })
	return nil
}

func legacyRecipe(name string) (experiment.Config, error) {
	c := experiment.Defaults()
	switch name {
	case "paper":
		return c, nil
	case "default":
		// Nine long starts, then up to 200 short starts (probes) of
		// patience 3, selecting on strings of lengths 22–100; the small
		// size (the paper's at third order), then the wide one if no start
		// passes selection. docs/training.md gives the evidence for each
		// part of this recipe.
		c = legacyLearningRecipe(c)
		c.Probes, c.ProbePatience, c.MaxEpochs, c.SelectMax = 200, 3, 1500, 100
		c.Size = "both"
		// As many action neurons as the PDA's program needs.
		c.ActionRule = "program"
		// Long starts that try each symbol in turn as one that leaves the
		// stack alone, with a patience of their own and the read's
		// derivative from both sides of the action: they find a symbol
		// that leaves the stack alone (the b's of aⁿbᵐcⁿ).
		c.NeutralWeight, c.NeutralPatience, c.NeutralTwoSided = 1, 50, true
		// Members and their one-edit neighbours at every length, not only
		// the lengths with members: nets exact on the paper's sets can
		// still accept aⁿbⁿ⁺¹.
		c.Edits = 500
		// A last start from the best weights, by SGD, when no start is
		// perfect.
		c.Polish = 50
		// Then, if the wide size's starts and polish end imperfect, up
		// to 12 more long starts, each holding a symbol at the no-op in
		// turn.
		c.FinalStarts = 12
		// The final starts lean three times harder on the neutral prior.
		c.FinalNeutralWeight = 3
		// And measured on them, beside the paper's sets: edit960 is
		// beyond every length that training or selection sees.
		c.Tests = append(slices.Clone(c.Tests), "edit60", "edit960")
		return c, nil
	case "action":
		// Knowledge of one automaton: its stack operations as targets of
		// the action neurons, with M + U(2,6) state neurons at both orders
		// (the paper's third-order rule), which measured best with them
		// (docs/training.md).
		c = legacyLearningRecipe(c)
		c.ActionWeight, c.Size = 1, "small"
		return c, nil
	case "data":
		// The small size first, as the default; selection on lengths
		// 22–200; the default's short starts after the long ones, at most
		// 1500 epochs a size (docs/training.md, "The other recipes").
		c = legacyLearningRecipe(c)
		c.Loss, c.NextWeight, c.LMWeight, c.Size, c.SelectMax = "", 0, 1, "both", 200
		c.Probes, c.ProbePatience, c.MaxEpochs = 200, 3, 1500
		return c, errors.Join(c.Set("soft_stack", true), c.Set("soft_alternate", true))
	}
	return c, fmt.Errorf("unknown recipe %q (want %s)", name, "a recipe")
}

// legacyLearningRecipe returns c with the settings the default, action and data
// recipes share: no hints, per-step viability and next-symbol-set targets, Adam on
// minibatches with norm clipping, the standard curriculum, J by the wide
// rule, and selection on longer strings with patience 20 and up to 8
// restarts. (More, shorter starts, --patience 5 --restarts 40, learn the
// third-order palindrome and lose slow learners: docs/training.md.)
func legacyLearningRecipe(c experiment.Config) experiment.Config {
	_ = c.Set("hints", 0)
	c.Loss, c.NextWeight = "viable", 1
	c.Optimizer, c.LR, c.Batch, c.ClipNorm = "adam", 0.01, 16, 5
	c.Curriculum, c.MaxEpochs, c.Patience, c.Restarts = "standard", 400, 20, 8
	c.Size = "wide"
	return c
}

// legacyTrainCommand is the old train's flags, parsed from args.
func legacyTrainCommand(args ...string) (*cobra.Command, error) {
	cfg, _ := legacyRecipe("default")
	pend := new(legacyModelOpts)
	var out, resume, recipe string
	var quiet bool
	cmd := &cobra.Command{Use: "train"}
	f := cmd.Flags()
	legacyBindConfigFlags(f, &cfg, pend)
	f.StringVar(&recipe, "recipe", "default", "")
	f.StringVar(&out, "out", "", "")
	f.StringVar(&resume, "resume", "", "")
	f.BoolVar(&quiet, "quiet", false, "")
	return cmd, cmd.ParseFlags(args)
}

// legacyTrainConfig is the configuration the old train made of args, or its
// error, without training.
func legacyTrainConfig(args ...string) (experiment.Config, error) {
	cmd, err := legacyTrainCommand(args...)
	if err != nil {
		return experiment.Config{}, err
	}
	recipe, _ := cmd.Flags().GetString("recipe")
	if cmd.Flags().Changed("data") && !cmd.Flags().Changed("recipe") {
		recipe = "data"
	}
	c, p, err := legacyApplyRecipe(cmd, recipe)
	if err != nil {
		return c, err
	}
	return c, legacyCheckTrainFlags(cmd, &c, p)
}
