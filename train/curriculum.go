package train

import (
	"fmt"
	"slices"
)

// Phase says what one epoch trains on and how.
type Phase struct {
	MaxLen      int  `json:"max_len"`      // present the training strings of length <= MaxLen
	Stage       int  `json:"stage"`        // 2-IL stage (1 or 2), 0 for other curricula
	Stochastic  bool `json:"stochastic"`   // stochastic learning rate (else fixed)
	WeightNoise bool `json:"weight_noise"` // 2-IL stage 2: weight noise on
	ValidMax    int  `json:"valid_max"`    // judge validation on strings of length <= ValidMax
}

// Report is what the driver tells a curriculum after an epoch.
type Report struct {
	SubsetAcc float64 // accuracy on the strings just trained on
	ValidAcc  float64 // accuracy on the validation strings of length <= Phase.ValidMax
	TrainAcc  float64 // accuracy on the whole training set
}

// Curriculum decides each epoch's phase. Its state must survive a JSON round
// trip (checkpoints save it).
type Curriculum interface {
	Name() string
	// Next returns the next epoch's phase given the report on the previous
	// epoch (nil before the first), or false when the curriculum has ended.
	Next(last *Report) (Phase, bool)
}

// NewCurriculum returns the named curriculum for training strings of
// lengths up to maxLen: "standard", "il" or "2il".
func NewCurriculum(name string, lengths []int) (Curriculum, error) {
	ls := slices.Clone(lengths)
	slices.Sort(ls)
	ls = slices.Compact(ls)
	if len(ls) == 0 {
		return nil, fmt.Errorf("no training strings")
	}
	maxLen := ls[len(ls)-1]
	switch name {
	case "standard":
		return &Standard{MaxLen: maxLen}, nil
	case "il":
		return &IL{Lengths: ls, Cap: 25}, nil
	case "2il":
		return &TwoIL{MaxLen: maxLen, NT: 14, Cap1: 200, Cap2: 350}, nil
	}
	return nil, fmt.Errorf("unknown curriculum %q (want standard, il or 2il)", name)
}

// Standard presents the whole training set every epoch, with the stochastic
// learning rate.
type Standard struct {
	MaxLen int `json:"max_len"`
}

// Name is "standard".
func (*Standard) Name() string { return "standard" }

// Next always trains on everything.
func (c *Standard) Next(*Report) (Phase, bool) {
	return Phase{MaxLen: c.MaxLen, Stochastic: true, ValidMax: c.MaxLen}, true
}

// IL is the one-stage incremental learning of Das, Giles and Sun (1993):
// train on the strings of length <= n until they are all classified
// correctly or Cap epochs have passed at that n, then move n to the next
// length; at the longest length, go on until the driver stops. Das et al. give
// no schedule; this reading and the cap are ours (docs/design.md).
type IL struct {
	Lengths []int `json:"lengths"` // distinct training lengths, increasing
	Cap     int   `json:"cap"`     // most epochs at one length
	Index   int   `json:"index"`   // current length: Lengths[Index]
	AtN     int   `json:"at_n"`    // epochs spent at it
}

// Name is "il".
func (*IL) Name() string { return "il" }

// Next advances n when the current subset is learned or the cap is reached.
func (c *IL) Next(last *Report) (Phase, bool) {
	if last != nil {
		c.AtN++
		if (last.SubsetAcc == 1 || c.AtN >= c.Cap) && c.Index < len(c.Lengths)-1 {
			c.Index++
			c.AtN = 0
		}
	}
	n := c.Lengths[c.Index]
	return Phase{MaxLen: n, Stochastic: true, ValidMax: n}, true
}

// TwoIL is the paper's two-stage incremental learning (Algorithm 1). Stage 1,
// with the stochastic learning rate: one pass over the strings of length <= N
// for N = 1..NT, then epochs over those of length <= NT until the validation
// strings of length <= NT are all classified correctly or Cap1 stage-1 epochs
// have passed. Stage 2, with a fixed rate and weight noise: one pass for each
// N = 1..MaxLen, then epochs over everything until the validation and
// training sets are both classified perfectly or Cap2 stage-2 epochs have
// passed; then the curriculum ends. Every pass counts as an epoch.
type TwoIL struct {
	MaxLen int `json:"max_len"`
	NT     int `json:"nt"`   // N_T, the stage-1 length threshold (14)
	Cap1   int `json:"cap1"` // 200
	Cap2   int `json:"cap2"` // 350
	Stage  int `json:"stage"`
	N      int `json:"n"`      // length of the current sequential pass; 0 in the random phase
	Epochs int `json:"epochs"` // epochs in the current stage
}

// Name is "2il".
func (*TwoIL) Name() string { return "2il" }

// Next walks Algorithm 1.
func (c *TwoIL) Next(last *Report) (Phase, bool) {
	nt := min(c.NT, c.MaxLen)
	if c.Stage == 0 { // first call
		c.Stage, c.N = 1, 1
		return c.phase(nt), true
	}
	c.Epochs++
	switch {
	case c.Stage == 1 && c.N > 0 && c.N < nt:
		c.N++
	case c.Stage == 1 && c.N > 0:
		c.N = 0 // random phase of stage 1
	case c.Stage == 1 && (last.ValidAcc == 1 || c.Epochs >= c.Cap1):
		c.Stage, c.N, c.Epochs = 2, 1, 0
	case c.Stage == 2 && c.N > 0 && c.N < c.MaxLen:
		c.N++
	case c.Stage == 2 && c.N > 0:
		c.N = 0
	case c.Stage == 2 && c.N == 0 && ((last.ValidAcc == 1 && last.TrainAcc == 1) || c.Epochs >= c.Cap2):
		return Phase{}, false
	}
	return c.phase(nt), true
}

func (c *TwoIL) phase(nt int) Phase {
	if c.Stage == 1 {
		n := c.N
		if n == 0 {
			n = nt
		}
		return Phase{MaxLen: n, Stage: 1, Stochastic: true, ValidMax: nt}
	}
	n := c.N
	if n == 0 {
		n = c.MaxLen
	}
	return Phase{MaxLen: n, Stage: 2, WeightNoise: true, ValidMax: c.MaxLen}
}
