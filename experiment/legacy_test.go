package experiment

// The recipes and the learning options' checks as they were written before
// the recipes became data (recipe.go) and the checks a table
// (learningChecks): the oracles of TestRecipesUnchanged and
// TestLearningChecksUnchanged.

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/train"
)

func legacyRecipe(name string) (Config, error) {
	c := Defaults()
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
	return c, fmt.Errorf("unknown recipe %q (want %s)", name, strings.Join(Recipes(), " or "))
}

// legacyLearningRecipe returns c with the settings the default, action and data
// recipes share: no hints, per-step viability and next-symbol-set targets, Adam on
// minibatches with norm clipping, the standard curriculum, J by the wide
// rule, and selection on longer strings with patience 20 and up to 8
// restarts. (More, shorter starts, --patience 5 --restarts 40, learn the
// third-order palindrome and lose slow learners: docs/training.md.)
func legacyLearningRecipe(c Config) Config {
	_ = c.Set("hints", 0)
	c.Loss, c.NextWeight = "viable", 1
	c.Optimizer, c.LR, c.Batch, c.ClipNorm = "adam", 0.01, 16, 5
	c.Curriculum, c.MaxEpochs, c.Patience, c.Restarts = "standard", 400, 20, 8
	c.Size = "wide"
	return c
}

func (c Config) legacyValidateLearning(spec nn.Spec) error {
	hints, _, _ := c.hints()
	beta0, _, alternate := c.softSchedule()
	f := legacyFacts{hints: hints, alternate: alternate, soft: beta0 > 0}
	for _, part := range []func(nn.Spec, legacyFacts) error{c.legacyLearning1, c.legacyLearning2, c.legacyLearning3, c.legacyLearning4, c.legacyLearning5} {
		if err := part(spec, f); err != nil {
			return err
		}
	}
	return nil
}

// legacyFacts are what the old switch computed before its cases.
type legacyFacts struct {
	hints           int
	alternate, soft bool
}

// legacyFinite is the old switch's test of a weight: finite and at least 0.
func legacyFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 }

// legacyLearning1 is cases 1–7 of the old switch, in order.
func (c Config) legacyLearning1(spec nn.Spec, f legacyFacts) error {
	finite, hints, alternate, soft := legacyFinite, f.hints, f.alternate, f.soft
	_, _, _, _ = finite, hints, alternate, soft
	switch {
	case c.Loss != "" && !slices.Contains(losses, c.Loss):
		return fmt.Errorf("unknown loss %q (want %s)", c.Loss, strings.Join(losses, ", "))
	case !finite(c.NextWeight) || !finite(c.LMWeight) || !finite(c.ActionWeight) || !finite(c.NeutralWeight):
		return fmt.Errorf("loss weights must be finite and at least 0")
	case c.Optimizer != "" && !slices.Contains(train.Optimizers, c.Optimizer):
		return fmt.Errorf("unknown optimizer %q (want %s)", c.Optimizer, strings.Join(train.Optimizers, " or "))
	case c.Batch < 0:
		return fmt.Errorf("batch must be at least 1 (or 0 for one string per update)")
	case !finite(c.ClipNorm):
		return fmt.Errorf("clip-norm must be finite and at least 0")
	case c.Patience < 0:
		return fmt.Errorf("patience must be at least 0")
	case c.Polish < 0 || c.Polish > 0 && c.Patience == 0:
		return fmt.Errorf("--polish needs --patience (it starts from the selected weights), and must be at least 0")
	}
	return nil
}

// legacyLearning2 is cases 8–14 of the old switch, in order.
func (c Config) legacyLearning2(spec nn.Spec, f legacyFacts) error {
	finite, hints, alternate, soft := legacyFinite, f.hints, f.alternate, f.soft
	_, _, _, _ = finite, hints, alternate, soft
	switch {
	case c.FinalStarts < 0 || c.FinalStarts > 0 && c.Patience == 0:
		return fmt.Errorf("--final-starts needs --patience (they follow a run whose best weights are not perfect), and must be at least 0")
	case c.Restarts < 0:
		return fmt.Errorf("restarts must be at least 0")
	case c.Restarts > 0 && c.Patience == 0:
		return fmt.Errorf("restarts need patience (a start ends when its patience runs out)")
	case c.Probes < 0 || c.Probes > 0 && (c.Patience == 0 || c.ProbePatience < 1):
		return fmt.Errorf("probes must be at least 0 and need patience and a probe-patience of at least 1")
	case c.ProbePatience < 0:
		return fmt.Errorf("probe-patience must be at least 0")
	case c.OwnPatience && (c.Patience == 0 || c.Restarts == 0):
		return fmt.Errorf("own-patience needs patience and restarts")
	case c.SelectMax != 0 && (c.SelectMax < selectSpec.MinLen || c.SelectMax > dataset.MaxLength):
		return fmt.Errorf("select-max %d out of range %d..%d (the select split's strings start at length %d)", c.SelectMax, selectSpec.MinLen, dataset.MaxLength, selectSpec.MinLen)
	}
	return nil
}

// legacyLearning3 is cases 15–21 of the old switch, in order.
func (c Config) legacyLearning3(spec nn.Spec, f legacyFacts) error {
	finite, hints, alternate, soft := legacyFinite, f.hints, f.alternate, f.soft
	_, _, _, _ = finite, hints, alternate, soft
	switch {
	case c.SelectMax != 0 && (c.Patience == 0 || c.Data != ""):
		return fmt.Errorf("select-max needs patience and a grammar (with --data the select file is --select)")
	case c.Edits < 0 || c.Edits > dataset.MaxExamples/2:
		return fmt.Errorf("edits %d out of range 0..%d", c.Edits, dataset.MaxExamples/2)
	case c.Edits > 0 && c.Data != "":
		return fmt.Errorf("edits needs a grammar: with --data, put the strings in the files")
	case c.ActionRule != "" && c.ActionRule != "program":
		return fmt.Errorf("unknown action rule %q (want program, or none for one action neuron per symbol)", c.ActionRule)
	case c.Data == "" && (c.ValidData != "" || c.SelectData != "" || len(c.TestData) > 0 || c.Alphabet != ""):
		return fmt.Errorf("valid, select, test files and the alphabet go with --data")
	case c.Data != "" && c.Grammar != "":
		return fmt.Errorf("--data trains without a grammar: drop --grammar")
	case c.Data != "" && (c.needsPDA() || hints > 0 || c.deadHint()):
		return fmt.Errorf("--data has no automaton: viable and next-symbol targets, the action loss and hints need --grammar")
	}
	return nil
}

// legacyLearning4 is cases 22–28 of the old switch, in order.
func (c Config) legacyLearning4(spec nn.Spec, f legacyFacts) error {
	finite, hints, alternate, soft := legacyFinite, f.hints, f.alternate, f.soft
	_, _, _, _ = finite, hints, alternate, soft
	switch {
	case c.Data != "" && c.Patience > 0 && c.SelectData == "" && c.HoldOut == 0:
		return fmt.Errorf("--patience with --data needs --select F.jsonl or --hold-out N (the strings to select on)")
	case c.HoldOut < 0 || c.HoldOut > 50:
		return fmt.Errorf("hold-out %d out of range 0..50 (percent of the training strings)", c.HoldOut)
	case c.HoldOut > 0 && (c.Data == "" || c.SelectData != "" || c.Patience == 0):
		return fmt.Errorf("hold-out selects on training strings of --data when there is no --select, and needs --patience")
	case c.LockStep && (!spec.LockStep || c.Batch <= 1 || !train.HasLockStep(c.Algorithm()) || c.Noise > 0 || soft || hints > 0):
		return fmt.Errorf("lock-step needs the nspda model, --batch > 1, the bptt algorithm, and no noise regularizer, soft stack or hints")
	case alternate && c.Restarts == 0:
		return fmt.Errorf("soft-alternate needs restarts (it alternates the stack between starts)")
	case c.Size != "" && !slices.Contains(sizes, c.Size):
		return fmt.Errorf("unknown size rule %q (want %s, or none for the paper's)", c.Size, strings.Join(sizes, " or "))
	case c.Size != "" && spec.Size == nil && c.Data == "":
		return fmt.Errorf("the size rule applies to the %s model only", sized())
	}
	return nil
}

// legacyLearning5 is cases 29–34 of the old switch, in order.
func (c Config) legacyLearning5(spec nn.Spec, f legacyFacts) error {
	finite, hints, alternate, soft := legacyFinite, f.hints, f.alternate, f.soft
	_, _, _, _ = finite, hints, alternate, soft
	switch {
	case c.Size == "both" && (c.Patience == 0 || c.Hidden != 0):
		return fmt.Errorf("--size both needs --patience (selection decides whether the wide size runs) and no --hidden")
	case c.NeutralWeight > 0 && (c.Patience == 0 || c.Restarts == 0):
		return fmt.Errorf("--neutral-weight needs --patience and --restarts (the first start has no neutral symbol)")
	case c.NeutralPatience < 0 || c.NeutralPatience > 0 && c.NeutralWeight == 0:
		return fmt.Errorf("--neutral-patience needs --neutral-weight, and must be at least 0")
	case !finite(c.FinalNeutralWeight) || c.FinalNeutralWeight < 0 || c.FinalNeutralWeight > 0 && (c.NeutralWeight == 0 || c.FinalStarts == 0):
		return fmt.Errorf("--final-neutral-weight needs --neutral-weight and --final-starts, and must be at least 0")
	case c.NeutralTwoSided && c.NeutralWeight == 0:
		return fmt.Errorf("--neutral-two-sided needs --neutral-weight")
	case c.NeutralTwoSided && (c.Option("soft_stack") == true || c.Option("no_read_grad") == true):
		return fmt.Errorf("--neutral-two-sided is a derivative of the digital stack's read: not with no-read-grad or soft-stack")
	}
	return nil
}
