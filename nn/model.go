package nn

import (
	"encoding/json"
	"io"
	"math/rand/v2"
)

// Model is a trainable classifier of any architecture as the model registry
// sees it: a Net that can name itself and be saved and rebuilt.
type Model interface {
	Net
	// Kind is the registry name ("nspda", "lstm", "stack-rnn", ...).
	Kind() string
	// Alphabet is the input alphabet, without the end marker.
	Alphabet() []rune
	// Config returns the JSON-serializable settings that, with Params,
	// rebuild the model through its Spec's Load.
	Config() any
}

// Options are what a Spec's New builds a model from: the size every model
// takes and the model's own options. Zero values select defaults.
type Options struct {
	Hidden int // hidden or state units
	// Own are the model's own options (from its Spec.Options, of its
	// package's type); nil selects the model's defaults.
	Own ModelOptions
}

// A SizeRule says how a Spec's Size draws a model's size.
type SizeRule int

// The size rules (experiment.Config.Size).
const (
	SizePaper SizeRule = iota // the paper's rule
	SizeWide                  // the wide rule
	SizeSmall                 // the small rule
)

// Spec describes one model kind for the registry.
type Spec struct {
	Name        string
	Description string
	// HigherOrder models are trained with UORO by default (the paper's
	// choice); first-order ones with BPTT. They get the noise regularizer.
	HigherOrder bool
	// Algo, if set, overrides that default estimator.
	Algo string
	// Options, if set, returns the model's own options (ModelOptions) at
	// their defaults: the keys a configuration of the model may set beyond
	// the settings every model shares. Nil: the model has none.
	Options func() ModelOptions
	// LockStep says that the model trains lock-step minibatches (its
	// models are Batchers on some options).
	LockStep bool
	// Size, if set, draws the model's size (Options.Hidden) when none is
	// given, for a language whose PDA has m states, by the rule rule (and
	// says that the model takes a size rule): the NSPDA's J = M + a few
	// (experiment.Config.Size).
	Size func(m int, opt Options, rule SizeRule, rng *rand.Rand) int
	// New builds a model with freshly initialized parameters drawn from rng.
	New func(alphabet []rune, opt Options, rng *rand.Rand) (Model, error)
	// Load rebuilds a model from its Config (as JSON) and parameters.
	Load func(alphabet []rune, config json.RawMessage, params []float64) (Model, error)
	// Decode, if set, reads a whole model file in the model's own format
	// (written by its Encoder) and returns the model and its evaluation
	// refinement; the registry then uses it instead of Load.
	Decode func(r io.Reader) (m Model, evalRefine int, err error)
}

// Discretizer is implemented by models that have a discretized variant
// (the NSPDA's ternary weights): Discretized returns it, leaving the
// receiver unchanged.
type Discretizer interface {
	Discretized() Model
}

// Reserver is implemented by nets whose memory must be sized for the longest
// string they will read (a continuous stack of fixed depth, say). Callers
// call Reserve(n) before reading strings of at most n symbols (plus the end
// marker); StateSize may change only then, and records made before stay
// usable (they grow at their next Step). A net reserved for more symbols
// than a string has reads it exactly as one reserved for that string's
// length. Reserved is the maxLen last reserved for.
type Reserver interface {
	Reserve(maxLen int)
	Reserved() int
}
