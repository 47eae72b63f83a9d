package nspda

import (
	"fmt"
	"math"

	"github.com/nspda/nspda/nn"
)

// Options are the NSPDA's own settings in a configuration (nn.ModelOptions):
// its tensor order, the hint programs written into it (package program),
// the read-gradient ablation and the superposition stack. Their JSON keys
// are a configuration's; the ones with omitempty are left out at their zero
// value, so that configurations from before they existed keep their keys.
type Options struct {
	Order int `json:"order"` // 2 or 3
	// Hints is the hint program written into the initial weights: 0 none,
	// 1 or 2 (program.HintProgram); HintH is its state weights' strength.
	Hints int     `json:"hints"`
	HintH float64 `json:"hint_h"`
	// NoReadGrad zeroes the derivative of the pending read with respect to
	// the decisive action neuron, ∂p/∂v* (docs/design.md section 5),
	// leaving the forward pass untouched: an ablation.
	NoReadGrad bool `json:"no_read_grad,omitempty"`
	// TwoSided takes the pending read's derivative from both sides of the
	// action, g = e(x) − r_below, instead of the side of the action taken
	// (Net; docs/design.md section 8).
	TwoSided bool `json:"two_sided,omitempty"`
	// SoftStack trains through a superposition stack whose sharpness β is
	// annealed from SoftBeta0 (0: 1) by the factor SoftGrowth (0:
	// DefaultSoftGrowth) per epoch of each start; evaluation stays on the
	// digital stack (docs/design.md section 8b).
	SoftStack  bool    `json:"soft_stack,omitempty"`
	SoftBeta0  float64 `json:"soft_beta0,omitempty"`
	SoftGrowth float64 `json:"soft_growth,omitempty"`
	// SoftAlternate (with SoftStack and restarts) trains the even starts
	// on the digital stack and the odd ones on the superposition stack, so
	// that selection chooses between them.
	SoftAlternate bool `json:"soft_alternate,omitempty"`
	// SoftStraight (with SoftStack) keeps the forward pass on the digital
	// stack's operation (π one-hot, DecodeAction's) and back-propagates
	// through the superposition stack's cells and its policy at β: a
	// straight-through estimator of credit through the stack.
	SoftStraight bool `json:"soft_straight,omitempty"`
	// Actions is the number of action neurons A (0: one per symbol, the
	// paper's |a| = |x|). At second order an operation that depends on
	// the stack's top needs action neurons of its own (docs/design.md
	// section 3), so a PDA can need more than one per symbol.
	Actions int `json:"actions,omitempty"`
}

// DefaultOptions are the paper's: third order, hint 2 of strength 1.
func DefaultOptions() *Options { return &Options{Order: 3, Hints: 2, HintH: 1} }

// DefaultSoftGrowth is the superposition stack's sharpness factor per epoch
// when Options.SoftGrowth is 0: β reaches about 10 by epoch 25.
const DefaultSoftGrowth = 1.1

// MaxHintStrength bounds HintH: far above any strength that trains (1 to
// 6), and low enough that the weights it sets stay finite.
const MaxHintStrength = 1000

// Validate reports the first setting that cannot work.
func (o *Options) Validate() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 }
	switch {
	case o.Order != 2 && o.Order != 3:
		return fmt.Errorf("order must be 2 or 3, not %d", o.Order)
	case o.Hints < 0 || o.Hints > 2:
		return fmt.Errorf("hints must be none, 1 or 2")
	case math.IsNaN(o.HintH) || math.IsInf(o.HintH, 0):
		return fmt.Errorf("hint_h, the hint strength, must be a finite number, not %g", o.HintH)
	case o.HintH > MaxHintStrength:
		return fmt.Errorf("hint_h, the hint strength, must be at most %g, not %g", float64(MaxHintStrength), o.HintH)
	case o.Hints > 0 && o.HintH <= 0:
		return fmt.Errorf("hint strength must be positive")
	case (o.SoftBeta0 != 0 || o.SoftGrowth != 0 || o.SoftAlternate || o.SoftStraight) && !o.SoftStack:
		return fmt.Errorf("soft_beta0, soft_growth, soft_alternate and soft_straight need soft_stack")
	case !finite(o.SoftBeta0) || !finite(o.SoftGrowth):
		return fmt.Errorf("soft_beta0 and soft_growth must be finite and at least 0")
	case o.TwoSided && (o.NoReadGrad || o.SoftStack):
		return fmt.Errorf("two_sided is a derivative of the digital stack's read: not with no_read_grad or soft_stack")
	case o.Actions < 0 || o.Actions > MaxUnits:
		return fmt.Errorf("actions must be 0 (one per symbol) to %d, not %d", MaxUnits, o.Actions)
	}
	return nil
}

// TensorOrder is the order of the network's tensors.
func (o *Options) TensorOrder() int { return o.Order }

// Hint returns the hint program's level (0: none), strength and the order
// of the network it is written into (package program reads them).
func (o *Options) Hint() (level int, h float64, order Order) {
	return o.Hints, o.HintH, Order(o.Order)
}

// SoftSchedule returns the superposition stack's sharpness schedule (β0,
// growth, and whether starts alternate with the digital stack): (0, 0,
// false) without the soft stack.
func (o *Options) SoftSchedule() (beta0, growth float64, alternate bool) {
	if !o.SoftStack {
		return 0, 0, false
	}
	beta0, growth = o.SoftBeta0, o.SoftGrowth
	if beta0 == 0 {
		beta0 = 1
	}
	if growth == 0 {
		growth = DefaultSoftGrowth
	}
	return beta0, growth, o.SoftAlternate
}

// options returns own as the NSPDA's options, the defaults if nil.
func options(own nn.ModelOptions) (*Options, error) {
	if own == nil {
		return DefaultOptions(), nil
	}
	o, ok := own.(*Options)
	if !ok {
		return nil, fmt.Errorf("nspda: options of type %T", own)
	}
	return o, nil
}
