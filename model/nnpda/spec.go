package nnpda

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/nspda/nspda/nn"
)

// Specs registers the NNPDA. Options.Hidden (default 8) and its own Options
// (order 2 or 3, default 3; the dead-state hint) apply; ε is DefaultEpsilon.
var Specs = []nn.Spec{{
	Name:        "nnpda",
	Description: "Sun, Giles, Chen & Lee's NNPDA: higher-order sigmoid controller, one analog action neuron, continuous stack read to depth 1",
	HigherOrder: true,
	Options:     func() nn.ModelOptions { return &Options{Order: 3} },
	New: func(alphabet []rune, opt nn.Options, rng *rand.Rand) (nn.Model, error) {
		if _, ok := opt.Own.(*Options); opt.Own != nil && !ok {
			return nil, fmt.Errorf("nnpda: options of type %T", opt.Own)
		}
		return New(alphabet, DefaultConfig(opt), rng)
	},
	Load: func(alphabet []rune, config json.RawMessage, params []float64) (nn.Model, error) {
		return Load(alphabet, config, params)
	},
}}

// DefaultConfig returns the settings opt selects, zero values replaced by the
// defaults.
func DefaultConfig(opt nn.Options) Config {
	cfg := Config{Hidden: opt.Hidden, Epsilon: DefaultEpsilon}
	if own, ok := opt.Own.(*Options); ok {
		cfg.Order = own.Order
	}
	if cfg.Order == 0 {
		cfg.Order = 3
	}
	if cfg.Hidden == 0 {
		cfg.Hidden = DefaultHidden
	}
	return cfg
}

// Options are the NNPDA's own settings in a configuration
// (nn.ModelOptions).
type Options struct {
	Order int `json:"order"` // the controller's tensor order, 2 or 3
	// DeadHint is the dead-state hint of Das, Giles and Sun: illegal
	// strings stop where they die and the dead neuron trains on
	// (train.DeadNeuron, program.DiesAt).
	DeadHint bool `json:"dead_hint,omitempty"`
}

// Validate reports the first setting that cannot work.
func (o *Options) Validate() error {
	if o.Order != 2 && o.Order != 3 {
		return fmt.Errorf("order must be 2 or 3, not %d", o.Order)
	}
	return nil
}

// TensorOrder is the controller's tensor order.
func (o *Options) TensorOrder() int { return o.Order }

// DeadStateHint reports whether the dead-state hint is on.
func (o *Options) DeadStateHint() bool { return o.DeadHint }

// Load rebuilds a network from its Config as JSON and a copy of its
// parameters, refusing unknown fields, bad settings, a parameter vector of the
// wrong length and non-finite parameters.
func Load(alphabet []rune, config json.RawMessage, params []float64) (*Model, error) {
	var cfg Config
	if err := nn.DecodeConfig(config, &cfg); err != nil {
		return nil, fmt.Errorf("nnpda: bad config: %v", err)
	}
	m, err := build(alphabet, cfg, len(params))
	if err != nil {
		return nil, err
	}
	if err := nn.CopyParams(m.params, params); err != nil {
		return nil, fmt.Errorf("nnpda: %v", err)
	}
	return m, nil
}
