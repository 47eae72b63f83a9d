package nnpda

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/nspda/nspda/nn"
)

// Specs registers the NNPDA. Options.Hidden (default 8) and Options.Order (2
// or 3, default 3) apply; ε is DefaultEpsilon.
var Specs = []nn.Spec{{
	Name:        "nnpda",
	Description: "Sun, Giles, Chen & Lee's NNPDA: higher-order sigmoid controller, one analog action neuron, continuous stack read to depth 1",
	HigherOrder: true,
	Takes:       nn.Settings{Order: true, DeadHint: true},
	New: func(alphabet []rune, opt nn.Options, rng *rand.Rand) (nn.Model, error) {
		return New(alphabet, DefaultConfig(opt), rng)
	},
	Load: func(alphabet []rune, config json.RawMessage, params []float64) (nn.Model, error) {
		return Load(alphabet, config, params)
	},
}}

// DefaultConfig returns the settings opt selects, zero values replaced by the
// defaults.
func DefaultConfig(opt nn.Options) Config {
	cfg := Config{Order: opt.Order, Hidden: opt.Hidden, Epsilon: DefaultEpsilon}
	if cfg.Order == 0 {
		cfg.Order = 3
	}
	if cfg.Hidden == 0 {
		cfg.Hidden = DefaultHidden
	}
	return cfg
}

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
	if err := nn.CheckFinite(params); err != nil {
		return nil, fmt.Errorf("nnpda: %v", err)
	}
	copy(m.params, params)
	return m, nil
}
