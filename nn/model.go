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

// Options are the settings a user can give any model; each model uses those
// that apply to it and ignores the rest. Zero values select defaults.
type Options struct {
	Hidden   int  // hidden or state units
	Stacks   int  // stacks (stack-rnn) or lists (list-rnn)
	Rounding bool // stack-rnn: hard argmax actions at evaluation
	Order    int  // nspda: tensor order 2 or 3
	// NoReadGrad (nspda) zeroes the derivative of the pending read through
	// the decisive action neuron, an ablation (docs/design.md section 5).
	NoReadGrad bool
	// SoftStack (nspda) trains through a superposition stack instead of
	// the digital one; evaluation stays digital (docs/design.md section 8b).
	SoftStack bool
}

// Spec describes one model kind for the registry.
type Spec struct {
	Name        string
	Description string
	// HigherOrder models are trained with UORO by default (the paper's
	// choice); first-order ones with BPTT. They get the noise regularizer.
	HigherOrder bool
	// Algo, if set, overrides that default estimator.
	Algo string
	// Takes says which settings beyond Hidden apply to the model; a
	// configuration that sets another is refused.
	Takes Settings
	// Size, if set, draws the model's size (Options.Hidden) when none is
	// given, for a language whose PDA has m states: the NSPDA's J = M + a
	// few. wide selects the wide rule (experiment.Config.Size).
	Size func(m int, opt Options, wide bool, rng *rand.Rand) int
	// New builds a model with freshly initialized parameters drawn from rng.
	New func(alphabet []rune, opt Options, rng *rand.Rand) (Model, error)
	// Load rebuilds a model from its Config (as JSON) and parameters.
	Load func(alphabet []rune, config json.RawMessage, params []float64) (Model, error)
	// Decode, if set, reads a whole model file in the model's own format
	// (written by its Encoder) and returns the model and its evaluation
	// refinement; the registry then uses it instead of Load.
	Decode func(r io.Reader) (m Model, evalRefine int, err error)
}

// Settings are the settings beyond Hidden a model may take (Spec.Takes).
type Settings struct {
	Order      bool // Options.Order: tensor order 2 or 3
	Stacks     bool // Options.Stacks and Rounding
	NoReadGrad bool // Options.NoReadGrad
	SoftStack  bool // Options.SoftStack: the superposition stack
	Hints      bool // the hint programs of package program
	DeadHint   bool // the dead-state hint of Das, Giles and Sun
	Size       bool // the size rules (Spec.Size)
	LockStep   bool // lock-step minibatches (a Batcher on some settings)
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
