package stackrnn

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/nspda/nspda/internal/limits"
	"github.com/nspda/nspda/nn"
)

// Specs registers the stack RNN and the list RNN. Options.Hidden (default
// 40) and their own Options (stacks: default 10 stacks or 5 lists; rounding)
// apply; a network built by a Spec has no R h_{t−1} term (Config.Recurrent is
// false: the authors' toy-task setting).
var Specs = []nn.Spec{spec(Stack), spec(List)}

func spec(mem Memory) nn.Spec {
	desc := "Joulin & Mikolov stack RNN: sigmoid hidden layer, continuous stacks (push/pop/no-op), read depth 2"
	if mem == List {
		desc = "Joulin & Mikolov list RNN: sigmoid hidden layer, continuous doubly-linked lists (insert/left/right/no-op), read depth 2"
	}
	return nn.Spec{
		Name:        mem.Kind(),
		Description: desc,
		Options:     func() nn.ModelOptions { return &Options{} },
		New: func(alphabet []rune, opt nn.Options, rng *rand.Rand) (nn.Model, error) {
			if _, ok := opt.Own.(*Options); opt.Own != nil && !ok {
				return nil, fmt.Errorf("stackrnn: options of type %T", opt.Own)
			}
			return New(mem, alphabet, DefaultConfig(mem, opt), rng)
		},
		Load: func(alphabet []rune, config json.RawMessage, params []float64) (nn.Model, error) {
			return Load(mem, alphabet, config, params)
		},
	}
}

// DefaultConfig returns the settings opt selects for a network with memory
// mem, zero values replaced by the defaults.
func DefaultConfig(mem Memory, opt nn.Options) Config {
	cfg := Config{Hidden: opt.Hidden}
	if own, ok := opt.Own.(*Options); ok {
		cfg.Stacks, cfg.Rounding = own.Stacks, own.Rounding
	}
	if cfg.Hidden == 0 {
		cfg.Hidden = DefaultHidden
	}
	if cfg.Stacks == 0 {
		cfg.Stacks = DefaultStacks
		if mem == List {
			cfg.Stacks = DefaultLists
		}
	}
	return cfg
}

// Options are the stack and list RNNs' own settings in a configuration
// (nn.ModelOptions).
type Options struct {
	Stacks   int  `json:"stacks"`   // stacks or lists; 0: the default
	Rounding bool `json:"rounding"` // hard argmax actions at evaluation
}

// Validate reports the first setting that cannot work.
func (o *Options) Validate() error {
	if o.Stacks < 0 {
		return fmt.Errorf("stacks must be positive (or 0 for the model's default)")
	}
	return limits.Check("stacks", o.Stacks, limits.Stacks)
}

// Load rebuilds a network from its Config as JSON and a copy of its
// parameters, refusing unknown fields, bad settings, a parameter vector of the
// wrong length and non-finite parameters.
func Load(mem Memory, alphabet []rune, config json.RawMessage, params []float64) (*Model, error) {
	var cfg Config
	if err := nn.DecodeConfig(config, &cfg); err != nil {
		return nil, fmt.Errorf("stackrnn: bad %s config: %v", mem.Kind(), err)
	}
	m, err := build(mem, alphabet, cfg, len(params))
	if err != nil {
		return nil, err
	}
	if err := nn.CopyParams(m.params, params); err != nil {
		return nil, fmt.Errorf("stackrnn: %v", err)
	}
	return m, nil
}
