// Package experiment runs trainings from complete configurations: one run
// into a directory (config, metrics, checkpoints, model, summary), a store
// of runs named by their configurations' keys, plans of runs for job
// arrays, and collection of stores. The paper's tables are package tables.
package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/train"
)

// Config is everything that determines a training run: the model's name,
// its own options (Option, Set: decoded and validated by the model's spec)
// and the settings every run has. Two runs with equal Configs on the same
// machine produce the same metrics, byte for byte.
type Config struct {
	Grammar string `json:"grammar"` // built-in name or PDA file
	Model   string `json:"model"`   // registry name
	// opts are the model's own options as JSON (options.go); "" for a
	// model that has none.
	opts       string
	Hidden     int      `json:"hidden"`     // state/hidden units; 0: the paper's rule (nspda) or the model's default
	Algo       string   `json:"algo"`       // bptt, tbptt, rtrl, uoro; "" the model's default
	Window     int      `json:"window"`     // tbptt window, in symbols
	Curriculum string   `json:"curriculum"` // standard, il, 2il
	Noise      float64  `json:"noise"`      // adaptive noise regularizer, % of matrices (0: off)
	NoiseScale float64  `json:"noise_scale"`
	StageNoise float64  `json:"stage_noise"` // 2-IL stage-2 weight noise, %
	Refine     int      `json:"refine"`      // K
	EvalRefine int      `json:"eval_refine"` // iterations per symbol when classifying; 0: K
	LR         float64  `json:"lr"`
	Clip       float64  `json:"clip"`
	MaxEpochs  int      `json:"max_epochs"`
	Seed       uint64   `json:"seed"`      // initialization and training randomness
	DataSeed   uint64   `json:"data_seed"` // training and validation data
	TestSeed   uint64   `json:"test_seed"` // test sets
	Positives  int      `json:"positives"` // training positives; 0: the paper's 1987
	Negatives  int      `json:"negatives"` // training negatives; 0: the paper's 2021
	Tests      []string `json:"tests"`     // test sets evaluated at the end
	// KeepBest ends the run with the weights of its best epoch on the whole
	// validation set rather than its last (omitted from the key when false,
	// so stored results of earlier versions keep their names).
	KeepBest bool `json:"keep_best,omitempty"`
	// Stage2Annealed: 2-IL's second stage keeps the rate stage 1's annealing
	// had reached (its mean, fixed) instead of returning to LR (omitted
	// from the key when false).
	Stage2Annealed bool `json:"stage2_annealed,omitempty"`

	// The learning options (docs/training.md, "What makes the NSPDA
	// learn"); each is omitted from the key at its zero value, the paper's.

	// Loss is the output's loss: "" or "label", the paper's (the string's
	// label at every input, eq. 6); "final" (the end marker only); or
	// "viable" (at each input, whether the prefix can still be completed to
	// a member, from the PDA; the label at the end marker).
	Loss string `json:"loss,omitempty"`
	// NextWeight weighs the next-symbol-set head (targets from the PDA).
	NextWeight float64 `json:"next_weight,omitempty"`
	// LMWeight weighs the language-model head (next symbol of members).
	LMWeight float64 `json:"lm_weight,omitempty"`
	// ActionWeight weighs the action loss (the PDA's stack operations as
	// targets of the action neurons; models with action neurons only).
	ActionWeight float64 `json:"action_weight,omitempty"`
	// NeutralWeight weighs the neutral-symbol prior (train.Objective): each
	// start pulls the action neurons towards the no-op on one input symbol
	// in turn, or on none (train.NeutralSymbol; needs no PDA; models with
	// action neurons only).
	NeutralWeight float64 `json:"neutral_weight,omitempty"`
	// NeutralPatience, with NeutralWeight, ends a long start with a neutral
	// symbol after this many epochs without a better score of its own (0:
	// as the other long starts; train.Settings.NeutralPatience).
	NeutralPatience int `json:"neutral_patience,omitempty"`
	// NeutralTwoSided, with NeutralWeight, trains the starts with a neutral
	// symbol with the read's two-sided derivative (the NSPDA's option
	// two_sided for those starts; train.Settings.NeutralTwoSided).
	NeutralTwoSided bool `json:"neutral_two_sided,omitempty"`
	// Optimizer is "" (SGD, the paper's) or "adam".
	Optimizer string `json:"optimizer,omitempty"`
	// Batch is the number of strings per update (0: one, the paper's).
	Batch int `json:"batch,omitempty"`
	// ClipNorm bounds each update's gradient norm (0: off).
	ClipNorm float64 `json:"clip_norm,omitempty"`
	// Patience keeps training past convergence, selecting the weights best
	// on the training set and the select split (lengths 22–40, or 22 to
	// SelectMax), and stops after Patience epochs without improvement (0:
	// stop at convergence).
	Patience int `json:"patience,omitempty"`
	// Polish gives a run whose starts all end without perfect weights one
	// more start from its best weights (its heads' weights 0), by SGD at
	// the paper's stochastic rate from LR, ending after Polish epochs
	// without improvement or 2·Polish epochs (needs Patience; 0: off;
	// train.Settings.Polish).
	Polish int `json:"polish,omitempty"`
	// FinalStarts gives a run whose weights are still not perfect after
	// its last size's starts (or when MaxEpochs cuts them short) and its
	// polish up to FinalStarts more long starts,
	// each holding a symbol at the no-op in turn (with NeutralWeight),
	// with MaxEpochs epochs of their own (needs Patience; 0: off;
	// train.Settings.Final). With the size rule "both" only the wide size
	// has them.
	FinalStarts int `json:"final_starts,omitempty"`
	// FinalNeutralWeight, when positive, weighs the neutral-symbol prior
	// on the final starts instead of NeutralWeight (needs both;
	// train.Objective.FinalNeutralWeight).
	FinalNeutralWeight float64 `json:"final_neutral_weight,omitempty"`
	// Restarts starts a run whose best weights are not perfect again from
	// new weights when its patience runs out, up to Restarts times (needs
	// Patience); the best over every start is kept.
	Restarts int `json:"restarts,omitempty"`
	// Probes short starts of patience ProbePatience run after the
	// Restarts long ones (train.Settings.Probes).
	Probes        int `json:"probes,omitempty"`
	ProbePatience int `json:"probe_patience,omitempty"`
	// OwnPatience ends a long start after Patience epochs without a
	// better score of its own rather than of every start so far
	// (train.Settings.OwnPatience).
	OwnPatience bool `json:"own_patience,omitempty"`
	// SelectMax, when positive, is the longest string of the select split
	// (needs Patience; 0: the split's 40, dataset.DefaultSpec("select")).
	// The split keeps its 200 positives and 200 negatives and its shortest
	// length, 22, so a longer SelectMax spreads them over more lengths.
	SelectMax int `json:"select_max,omitempty"`
	// Edits, when positive, joins an edit split (dataset.Spec.Edits: each
	// negative one insertion into or one deletion from a member, at any
	// length) of Edits positives and Edits negatives of lengths 1..21 to the
	// training set, and with Patience one of 200 and 200 of the select
	// split's lengths to the select set. Not the paper's: its length-matched
	// negatives never show the lengths at which the language has no member
	// (docs/results.md). Needs a grammar.
	Edits int `json:"edits,omitempty"`
	// ActionRule, for the NSPDA on a grammar, draws its number of action
	// neurons: "" (one per symbol, the paper's, or the model option
	// actions) or "program" (as many as the compiled program of the PDA
	// at the run's order uses, if that is more: at second order an
	// operation that depends on the stack's top needs action neurons of
	// its own; docs/design.md section 3). An actions option wins over the
	// rule. The built-in languages' programs use one per symbol at both
	// orders, and other models and data files have no program, so
	// Normalize drops the rule for them.
	ActionRule string `json:"action_rule,omitempty"`

	// Data, when set, trains on this JSONL file of labelled strings instead
	// of the grammar's generated split: learning from data alone, with no
	// automaton (Grammar is then ignored and must be empty).
	Data string `json:"data,omitempty"`
	// ValidData and SelectData are the validation and selection files of a
	// run on Data (both optional), TestData its test files.
	ValidData  string   `json:"valid_data,omitempty"`
	SelectData string   `json:"select_data,omitempty"`
	TestData   []string `json:"test_data,omitempty"`
	// Alphabet fixes the order of the symbols of a run on Data (default:
	// every symbol of its files, sorted).
	Alphabet string `json:"alphabet,omitempty"`
	// HoldOut, on Data with no SelectData, is the percent of the training
	// strings, the longest, held out of training to select weights on:
	// without any selection one start does not learn a^n b^n (seed 1: 9%
	// training error after 400 epochs), with the longest tenth held out
	// the data recipe does on seeds 1–3.
	HoldOut int `json:"hold_out,omitempty"`
	// LockStep (nspda, BPTT, Batch > 1) trains each minibatch in lock-step
	// on the batched kernels (train.Settings.LockStep; docs/performance.md).
	// Each string draws its reads from its own stream, so it is another run
	// than the same configuration without it.
	LockStep bool `json:"lock_step,omitempty"`
	// Size is the rule that draws the NSPDA's J when Hidden is 0: "" the
	// paper's, M + U(2,6) at third order and M + U(12,29) at second (M the
	// PDA's states); "wide", M + U(12,29) at both orders (the default
	// recipe's). On data files, with no M: 8, or 20 under "wide"
	// (dataHidden, wideDataHidden).
	// "small": M + U(2,6) at both orders, the paper's third-order rule (the
	// action recipe's).
	// "both": the small rule first, with the whole schedule of starts;
	// if no start passes selection (training and select sets perfect), the
	// wide rule again from the beginning, and the run keeps the net of the
	// two that scored better on selection (ties: the small one). Each size
	// has MaxEpochs; the epochs and characters of a run are both phases'
	// (Summary.WideFrom).
	// Normalize spells each rule that draws as the paper's does as "" (at
	// second order "wide", at third "small"; on data files "small").
	Size string `json:"size,omitempty"`
	// Portfolio trains the starts of each size independently, several at
	// once (train.RunPortfolio): each draws its random streams from the
	// seed and its index alone, with a patience and MaxEpochs of its own,
	// and the run keeps the first start, in their order, that passes
	// selection. Another run than the same configuration without it, whose
	// starts share their streams and patience (omitted from the key when
	// false). Needs Patience.
	Portfolio bool `json:"portfolio,omitempty"`
	// StartEpochs and ProbeEpochs, with Portfolio, end each long or final
	// start (StartEpochs) and each probe (ProbeEpochs) after that many
	// epochs of its own if its patience has not ended it before
	// (train.Settings.StartEpochs; 0: no bound, omitted from the key).
	StartEpochs int `json:"start_epochs,omitempty"`
	ProbeEpochs int `json:"probe_epochs,omitempty"`
	// Finish, with Portfolio, finishes each start from new weights whose
	// best score (training plus select error fraction) ends above 0 and
	// at most Finish: on the superposition stack at the sharpness
	// FinishBeta, by Adam at FinishRate (train.Settings.Finish; 0: off,
	// all three omitted from the key).
	Finish     float64 `json:"finish,omitempty"`
	FinishRate float64 `json:"finish_rate,omitempty"`
	FinishBeta float64 `json:"finish_beta,omitempty"`
	// Workers is how many starts of a portfolio train at once (0: one per
	// core). Not part of the run's identity: the run's files are the same
	// for every value, so it is neither in the key nor in config.json; a
	// setting (--opt workers=N) by its tag setting.
	Workers int `json:"-" setting:"workers"`
}

// selectSpec is the select split's default: a SelectMax below its MinLen
// would leave the split empty, and one equal to its MaxLen changes nothing.
var selectSpec, _ = dataset.DefaultSpec("select")

// sizes are the rules of Config.Size.
var sizes = []string{"wide", "both", "small"}

// Normalize returns c with the settings that change nothing spelled the one
// way (a size rule that draws as the paper's does is "": "paper"; "wide"
// at second order on a grammar; "small" at third order or on data files),
// so that equal trainings have one key.
func (c Config) Normalize() Config {
	switch order := c.TensorOrder(); {
	case c.Size == "paper",
		c.Size == "small" && (order == 3 || c.Data != ""),
		c.Size == "wide" && order == 2 && c.Data == "":
		c.Size = ""
	}
	if c.Probes == 0 {
		c.ProbePatience = 0 // the default's, left behind by --probes 0
	}
	if c.SelectMax == selectSpec.MaxLen {
		c.SelectMax = 0
	}
	if _, builtin := grammar.Builtin(c.Grammar); c.ActionRule == "program" && (builtin || c.Data != "" || c.Model != "nspda") {
		// The built-in languages' programs use one action neuron per
		// symbol (TestActionRuleBuiltins); data and other models have
		// no program.
		c.ActionRule = ""
	}
	return c
}

// Defaults returns the configuration of a bare `nspda train`: the paper's
// settings, except K = 1 and hint strength 1, with which our NSPDA learns and
// with K = 4 and H = 6 it does not (docs/training.md).
func Defaults() Config {
	return Config{
		Grammar: "anbn", Curriculum: "2il",
		Window: 50, NoiseScale: 0.2, StageNoise: 10, Refine: 1,
		LR: 0.1005000321, Clip: 13, MaxEpochs: 500, Seed: 1, DataSeed: 1, TestSeed: 1,
		Tests: []string{"test60", "test480", "test960"},
	}.WithModel("nspda") // order 3, hint 2 of strength 1: nspda.DefaultOptions
}

// Validate reports the first setting that cannot work: the model's own
// options are validated by the model (nn.ModelOptions), the settings every
// run has here.
func (c Config) Validate() error {
	spec, err := model.Lookup(c.Model)
	if err != nil {
		return err
	}
	own, err := c.options()
	if err != nil {
		return err
	}
	if own != nil {
		if err := own.Validate(); err != nil {
			return err
		}
	}
	if err := c.checkBounds(); err != nil {
		return err
	}
	switch {
	case c.Stage2Annealed && c.Curriculum != "2il":
		return fmt.Errorf("stage2_annealed applies to the 2il curriculum only (it has the only fixed-rate stage)")
	case c.Noise > 0 && !spec.HigherOrder:
		return fmt.Errorf("the noise regularizer applies to higher-order models only (%s), not %s", strings.Join(higherOrder(), ", "), c.Model)
	case c.Algo != "" && !slices.Contains(train.EstimatorNames(), c.Algo):
		return fmt.Errorf("unknown algorithm %q (want %s)", c.Algo, train.EstimatorList())
	case !slices.Contains([]string{"standard", "il", "2il"}, c.Curriculum):
		return fmt.Errorf("unknown curriculum %q (want standard, il or 2il)", c.Curriculum)
	case c.Noise < 0 || c.Noise > 100 || c.StageNoise < 0 || c.StageNoise > 100:
		return fmt.Errorf("noise must be a percentage from 0 to 100")
	case c.Refine < 1:
		return fmt.Errorf("refine must be at least 1")
	case c.EvalRefine < 0:
		return fmt.Errorf("eval_refine must be at least 1 (or 0 for K)")
	case !(c.LR > 0):
		return fmt.Errorf("lr, the learning rate, must be positive")
	case !(c.Clip > 0):
		return fmt.Errorf("clip must be positive")
	case c.MaxEpochs < 1:
		return fmt.Errorf("max-epochs must be at least 1")
	case c.Window < 1:
		return fmt.Errorf("window must be at least 1")
	}
	if err := c.checkPortfolio(); err != nil {
		return err
	}
	return c.validateLearning(spec)
}

// checkPortfolio reports the first portfolio setting that cannot work.
func (c Config) checkPortfolio() error {
	switch {
	case c.Portfolio && c.Patience == 0:
		return fmt.Errorf("portfolio needs patience (its starts end by selection)")
	case c.Workers < 0:
		return fmt.Errorf("workers must be at least 1 (or 0 for one per core)")
	case c.StartEpochs < 0 || c.ProbeEpochs < 0:
		return fmt.Errorf("start_epochs and probe_epochs must be at least 0")
	case (c.StartEpochs > 0 || c.ProbeEpochs > 0) && !c.Portfolio:
		return fmt.Errorf("start_epochs and probe_epochs need portfolio (a plain run's starts end by their shared patience)")
	case c.ProbeEpochs > 0 && c.Probes == 0:
		return fmt.Errorf("probe_epochs needs probes")
	}
	return c.checkFinish()
}

// checkFinish reports the first finish setting that cannot work.
func (c Config) checkFinish() error {
	switch {
	case !finite(c.Finish) || c.Finish > 2:
		return fmt.Errorf("finish must be a score from 0 to 2 (training plus select error fraction), not %g", c.Finish)
	case c.Finish == 0 && (c.FinishRate != 0 || c.FinishBeta != 0):
		return fmt.Errorf("finish_rate and finish_beta are the finish's: they need finish")
	case c.Finish == 0:
		return nil
	case !c.Portfolio:
		return fmt.Errorf("finish needs portfolio (it finishes a start of a portfolio)")
	case !c.finishable():
		return fmt.Errorf("finish trains an nspda on its superposition stack by Adam: it needs the nspda model and the adam optimizer")
	case !finite(c.FinishRate) || c.FinishRate == 0 || !finite(c.FinishBeta) || c.FinishBeta == 0:
		return fmt.Errorf("finish needs a finish_rate and a finish_beta above 0 (got %g and %g)", c.FinishRate, c.FinishBeta)
	}
	return nil
}

// finishable reports whether a finish can train the configuration's starts:
// a portfolio of NSPDA starts by Adam (the superposition stack is the
// NSPDA's, and the finish steps by Adam).
func (c Config) finishable() bool {
	return c.Portfolio && c.Model == "nspda" && c.Optimizer == "adam"
}

// losses are the values of Config.Loss.
var losses = []string{"label", "final", "viable"}

// validateLearning checks the learning options: the first of
// learningChecks that finds them bad gives the error.
func (c Config) validateLearning(spec nn.Spec) error {
	hints, _, _ := c.hints()
	beta0, _, alternate := c.softSchedule()
	f := learningFacts{spec: spec, hints: hints, soft: beta0 > 0, alternate: alternate}
	for _, k := range learningChecks {
		if k.bad(c, f) {
			return k.err(c)
		}
	}
	return nil
}

// learningFacts are what the checks of the learning options read beside
// the configuration: its model's spec, hint level and superposition stack.
type learningFacts struct {
	spec            nn.Spec
	hints           int
	soft, alternate bool
}

// A learningCheck refuses the configurations bad reports, with err's error.
type learningCheck struct {
	bad func(c Config, f learningFacts) bool
	err func(c Config) error
}

// errorf is the err of a check whose message does not depend on the
// configuration.
func errorf(format string, args ...any) func(Config) error {
	return func(Config) error { return fmt.Errorf(format, args...) }
}

// finite reports whether a weight is a finite number of at least 0.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 }

// learningChecks are validateLearning's checks, in order.
var learningChecks = []learningCheck{
	{func(c Config, f learningFacts) bool { return c.Loss != "" && !slices.Contains(losses, c.Loss) },
		func(c Config) error {
			return fmt.Errorf("unknown loss %q (want %s)", c.Loss, strings.Join(losses, ", "))
		}},
	{func(c Config, f learningFacts) bool {
		return !finite(c.NextWeight) || !finite(c.LMWeight) || !finite(c.ActionWeight) || !finite(c.NeutralWeight)
	},
		errorf("loss weights must be finite and at least 0")},
	{func(c Config, f learningFacts) bool {
		return c.Optimizer != "" && !slices.Contains(train.Optimizers, c.Optimizer)
	},
		func(c Config) error {
			return fmt.Errorf("unknown optimizer %q (want %s)", c.Optimizer, strings.Join(train.Optimizers, " or "))
		}},
	{func(c Config, f learningFacts) bool { return c.Batch < 0 },
		errorf("batch must be at least 1 (or 0 for one string per update)")},
	{func(c Config, f learningFacts) bool { return !finite(c.ClipNorm) },
		errorf("clip-norm must be finite and at least 0")},
	{func(c Config, f learningFacts) bool { return c.Patience < 0 },
		errorf("patience must be at least 0")},
	{func(c Config, f learningFacts) bool { return c.Polish < 0 || c.Polish > 0 && c.Patience == 0 },
		errorf("polish needs --patience (it starts from the selected weights), and must be at least 0")},
	{func(c Config, f learningFacts) bool { return c.FinalStarts < 0 || c.FinalStarts > 0 && c.Patience == 0 },
		errorf("final_starts needs --patience (they follow a run whose best weights are not perfect), and must be at least 0")},
	{func(c Config, f learningFacts) bool { return c.Restarts < 0 },
		errorf("restarts must be at least 0")},
	{func(c Config, f learningFacts) bool { return c.Restarts > 0 && c.Patience == 0 },
		errorf("restarts need patience (a start ends when its patience runs out)")},
	{func(c Config, f learningFacts) bool {
		return c.Probes < 0 || c.Probes > 0 && (c.Patience == 0 || c.ProbePatience < 1)
	},
		errorf("probes must be at least 0 and need patience and a probe_patience of at least 1")},
	{func(c Config, f learningFacts) bool { return c.ProbePatience < 0 },
		errorf("probe_patience must be at least 0")},
	{func(c Config, f learningFacts) bool { return c.OwnPatience && (c.Patience == 0 || c.Restarts == 0) },
		errorf("own_patience needs patience and restarts")},
	{func(c Config, f learningFacts) bool {
		return c.SelectMax != 0 && (c.SelectMax < selectSpec.MinLen || c.SelectMax > dataset.MaxLength)
	},
		func(c Config) error {
			return fmt.Errorf("select_max %d out of range %d..%d (the select split's strings start at length %d)", c.SelectMax, selectSpec.MinLen, dataset.MaxLength, selectSpec.MinLen)
		}},
	{func(c Config, f learningFacts) bool { return c.SelectMax != 0 && (c.Patience == 0 || c.Data != "") },
		errorf("select_max needs patience and a grammar (with --data the select file is --select)")},
	{func(c Config, f learningFacts) bool { return c.Edits < 0 || c.Edits > dataset.MaxExamples/2 },
		func(c Config) error { return fmt.Errorf("edits %d out of range 0..%d", c.Edits, dataset.MaxExamples/2) }},
	{func(c Config, f learningFacts) bool { return c.Edits > 0 && c.Data != "" },
		errorf("edits needs a grammar: with --data, put the strings in the files")},
	{func(c Config, f learningFacts) bool { return c.ActionRule != "" && c.ActionRule != "program" },
		func(c Config) error {
			return fmt.Errorf("unknown action rule %q (want program, or none for one action neuron per symbol)", c.ActionRule)
		}},
	{func(c Config, f learningFacts) bool {
		return c.Data == "" && (c.ValidData != "" || c.SelectData != "" || len(c.TestData) > 0 || c.Alphabet != "")
	},
		errorf("valid, select, test files and the alphabet go with --data")},
	{func(c Config, f learningFacts) bool { return c.Data != "" && c.Grammar != "" },
		errorf("--data trains without a grammar: drop --grammar")},
	{func(c Config, f learningFacts) bool {
		return c.Data != "" && (c.needsPDA() || f.hints > 0 || c.deadHint())
	},
		errorf("--data has no automaton: viable and next-symbol targets, the action loss and hints need --grammar")},
	{func(c Config, f learningFacts) bool {
		return c.Data != "" && c.Patience > 0 && c.SelectData == "" && c.HoldOut == 0
	},
		errorf("--patience with --data needs --select F.jsonl or --hold-out N (the strings to select on)")},
	{func(c Config, f learningFacts) bool { return c.HoldOut < 0 || c.HoldOut > 50 },
		func(c Config) error {
			return fmt.Errorf("hold-out %d out of range 0..50 (percent of the training strings)", c.HoldOut)
		}},
	{func(c Config, f learningFacts) bool {
		return c.HoldOut > 0 && (c.Data == "" || c.SelectData != "" || c.Patience == 0)
	},
		errorf("hold-out selects on training strings of --data when there is no --select, and needs --patience")},
	{func(c Config, f learningFacts) bool {
		return c.LockStep && (!f.spec.LockStep || c.Batch <= 1 || !train.HasLockStep(c.Algorithm()) || c.Noise > 0 || f.soft || f.hints > 0)
	},
		errorf("lock_step needs the nspda model, --batch > 1, the bptt algorithm, and no noise regularizer, soft stack or hints")},
	{func(c Config, f learningFacts) bool { return f.alternate && c.Restarts == 0 },
		errorf("soft_alternate needs restarts (it alternates the stack between starts)")},
	{func(c Config, f learningFacts) bool { return c.Size != "" && !slices.Contains(sizes, c.Size) },
		func(c Config) error {
			return fmt.Errorf("unknown size rule %q (want %s, or none for the paper's)", c.Size, strings.Join(sizes, " or "))
		}},
	{func(c Config, f learningFacts) bool { return c.Size != "" && f.spec.Size == nil && c.Data == "" },
		errorf("the size rule applies to the %s model only", sized())},
	{func(c Config, f learningFacts) bool { return c.Size == "both" && (c.Patience == 0 || c.Hidden != 0) },
		errorf("--size both needs --patience (selection decides whether the wide size runs) and no --hidden")},
	{func(c Config, f learningFacts) bool {
		return c.NeutralWeight > 0 && (c.Patience == 0 || c.Restarts == 0)
	},
		errorf("neutral_weight needs --patience and --restarts (the first start has no neutral symbol)")},
	{func(c Config, f learningFacts) bool {
		return c.NeutralPatience < 0 || c.NeutralPatience > 0 && c.NeutralWeight == 0
	},
		errorf("neutral_patience needs neutral_weight, and must be at least 0")},
	{func(c Config, f learningFacts) bool {
		return !finite(c.FinalNeutralWeight) || c.FinalNeutralWeight < 0 || c.FinalNeutralWeight > 0 && (c.NeutralWeight == 0 || c.FinalStarts == 0)
	},
		errorf("final_neutral_weight needs neutral_weight and final_starts, and must be at least 0")},
	{func(c Config, f learningFacts) bool { return c.NeutralTwoSided && c.NeutralWeight == 0 },
		errorf("neutral_two_sided needs neutral_weight")},
	{func(c Config, f learningFacts) bool {
		return c.NeutralTwoSided && (c.Option("soft_stack") == true || c.Option("no_read_grad") == true)
	},
		errorf("neutral_two_sided is a derivative of the digital stack's read: not with no_read_grad or soft_stack")},
}

// EpochBudget is the most epochs a run of c may take, the total its
// progress lines count to: for each size it trains (Config.Size), MaxEpochs
// of starts, up to 2·Polish (MaxEpochs if fewer) of a polishing start
// (Polish), and, for the last size, up to MaxEpochs of final starts
// (FinalStarts). A bound, not a forecast: --max-epochs 1 of the default
// recipe counts to 5 and trains 4 (1 of the paper's size, whose 209 starts
// cannot all end in one epoch to let its polish begin; 1 of the wide one,
// 1 of its polish, 1 of its final starts).
func (c Config) EpochBudget() int {
	n := 0
	for _, p := range c.sizePhases() {
		n += p.MaxEpochs
		if p.Polish > 0 {
			n += min(2*p.Polish, p.MaxEpochs)
		}
		if p.FinalStarts > 0 {
			n += p.MaxEpochs
		}
	}
	return n
}

// sizePhases lists the configurations a run trains one after the other:
// c itself, or for the size rule "both" the small size (the paper's
// third-order rule), then the wide one (Config.Size).
func (c Config) sizePhases() []Config {
	if c.Size != "both" {
		return []Config{c}
	}
	small, wide := c, c
	small.Size, wide.Size = "small", "wide"
	small.FinalStarts, small.FinalNeutralWeight = 0, 0 // the last size's
	return []Config{small, wide}
}

// FirstSize names the first size of the rule "both" in summaries: "paper"
// where the small rule is the paper's (third order, data files), "small"
// at second order.
func (c Config) FirstSize() string {
	if c.TensorOrder() == 2 && c.Data == "" {
		return "small"
	}
	return "paper"
}

// sizeRule is the rule of Config.Size for one size (not "both").
func (c Config) sizeRule() nn.SizeRule {
	switch c.Size {
	case "wide":
		return nn.SizeWide
	case "small":
		return nn.SizeSmall
	}
	return nn.SizePaper
}

// needsPDA reports whether the configuration's losses take targets from the
// grammar's PDA (and so cannot train from data alone).
func (c Config) needsPDA() bool {
	return c.Loss == "viable" || c.NextWeight > 0 || c.ActionWeight > 0
}

// sized lists the registered models with a size rule (Spec.Size).
func sized() string {
	var names []string
	for _, s := range model.Specs() {
		if s.Size != nil {
			names = append(names, s.Name)
		}
	}
	return strings.Join(names, ", ")
}

// higherOrder lists the registered higher-order models: those the noise
// regularizer perturbs.
func higherOrder() []string {
	var names []string
	for _, s := range model.Specs() {
		if s.HigherOrder {
			names = append(names, s.Name)
		}
	}
	return names
}

// ReadConfig reads the config.json of the run in dir, refusing unknown
// fields: the configuration Train resumes with.
func ReadConfig(dir string) (Config, error) { return readConfig(dir) }

// Algorithm is the estimator the run uses: Algo, or the model's default: the
// paper's choice (UORO for higher-order models, BPTT for first-order ones)
// except where the registry overrides it (the NSPDA: BPTT, docs/training.md).
func (c Config) Algorithm() string {
	if c.Algo != "" {
		return c.Algo
	}
	spec, err := model.Lookup(c.Model)
	switch {
	case err == nil && spec.Algo != "":
		return spec.Algo
	case err == nil && spec.HigherOrder:
		return "uoro"
	}
	return "bptt"
}

// Key is a hash of the configuration: the name of its result in a store.
// A configuration JSON cannot encode (a NaN; Validate refuses it) is hashed
// from its Go rendering, so that distinct invalid configurations still have
// distinct keys, none of them a valid one's.
func (c Config) Key() string {
	b, err := json.Marshal(c)
	if err != nil {
		b = fmt.Appendf(nil, "invalid %#v", c)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}
