// Package model is the registry of every trainable model: the NSPDA and the
// baselines the paper compares it with. Commands and experiments name models
// only through it.
package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/nspda/nspda/internal/atomicfile"
	"github.com/nspda/nspda/internal/jsonbound"
	"github.com/nspda/nspda/internal/jsonerr"
	"github.com/nspda/nspda/internal/limits"
	"github.com/nspda/nspda/model/nnpda"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/model/rnn"
	"github.com/nspda/nspda/model/stackrnn"
	"github.com/nspda/nspda/nn"
)

// specs holds every registered model, in the order `nspda models` lists them.
var specs = concat(nspda.Specs, rnn.Specs, stackrnn.Specs, nnpda.Specs)

func concat(lists ...[]nn.Spec) []nn.Spec {
	var out []nn.Spec
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// Lookup returns the spec of the named model.
func Lookup(name string) (nn.Spec, error) {
	for _, s := range specs {
		if s.Name == name {
			return s, nil
		}
	}
	return nn.Spec{}, fmt.Errorf("unknown model %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Names lists the registered models.
func Names() []string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	return names
}

// Having lists the registered models whose own options (Spec.Options)
// have the option key, joined for a message: "nspda", "stack-rnn and
// list-rnn".
func Having(key string) string {
	var names []string
	for _, s := range specs {
		if s.Options != nil && nn.HasOption(s.Options(), key) {
			names = append(names, s.Name)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// Options returns the named model's own options at their defaults (nil for
// a model that has none, or an unknown one).
func Options(name string) nn.ModelOptions {
	spec, err := Lookup(name)
	if err != nil || spec.Options == nil {
		return nil
	}
	return spec.Options()
}

// Specs returns every registered spec.
func Specs() []nn.Spec { return append([]nn.Spec(nil), specs...) }

// Classifier returns an evaluation-mode classifier for m that uses m's
// current weights, refine iterations per symbol: the model's own if it is an
// nn.ClassifierMaker (the NSPDA's fast runner), else an nn.NetClassifier.
func Classifier(m nn.Model, refine int) nn.Classifier {
	if c, ok := m.(nn.ClassifierMaker); ok {
		return c.Classifier(refine)
	}
	return nn.NewClassifier(m, refine)
}

// envelope is the model file of a model that has no format of its own (is
// not an nn.Encoder).
type envelope struct {
	Format   string          `json:"format"`
	Version  int             `json:"version"`
	Kind     string          `json:"kind"`
	Alphabet string          `json:"alphabet"`
	Refine   int             `json:"eval_refine"`
	Config   json.RawMessage `json:"config"`
	Params   []float64       `json:"params"`
}

// Save writes m to path atomically. A model with a file format of its own
// (an nn.Encoder: the NSPDA) writes it; other models are written as an
// envelope of their config and parameters.
func Save(path string, m nn.Model, evalRefine int) error {
	var buf bytes.Buffer
	if e, ok := m.(nn.Encoder); ok {
		if err := e.Encode(&buf, evalRefine); err != nil {
			return err
		}
		return atomicfile.WriteFile(path, buf.Bytes())
	}
	cfg, err := json.Marshal(m.Config())
	if err != nil {
		return err
	}
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	if err := enc.Encode(envelope{Format: nspda.FileFormat, Version: nspda.FileVersion, Kind: m.Kind(),
		Alphabet: string(m.Alphabet()), Refine: max(1, evalRefine), Config: cfg, Params: m.Params()}); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, buf.Bytes())
}

// Load reads a model file of any registered kind and returns the model and
// its evaluation refinement. The file's kind names the spec; a spec with a
// Decode reads its own format, the others are read from the envelope through
// their Load. Besides the file's bytes, Load allocates the model and, for an
// envelope, its parameters once more: every array is counted in place and
// checked before it is decoded.
func Load(path string) (nn.Model, int, error) {
	data, err := limits.ReadFile(path, "model file", limits.ModelBytes)
	if err != nil {
		return nil, 0, err
	}
	m, refine, err := decode(data)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %v", path, err)
	}
	return m, refine, nil
}

// envelopeIn is envelope as Load reads it: the parameters counted, not
// decoded.
type envelopeIn struct {
	envelope
	Params jsonbound.Floats `json:"params"`
}

var envelopeKeys = []string{"format", "version", "kind", "alphabet", "eval_refine", "config", "params"}

// decode is Load of the file's bytes.
func decode(data []byte) (nn.Model, int, error) {
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
		Kind    string `json:"kind"`
	}
	if err := nspda.UnmarshalStrict(data, &head); err != nil {
		return nil, 0, err
	}
	if spec, err := Lookup(head.Kind); err == nil && spec.Decode != nil {
		// A Buffer is decoded in place (nspda.Decode), not copied.
		return spec.Decode(bytes.NewBuffer(data))
	}
	if head.Format != nspda.FileFormat {
		return nil, 0, fmt.Errorf("not an nspda model file (format %q)", head.Format)
	}
	if head.Version > nspda.FileVersion {
		return nil, 0, fmt.Errorf("model file version %d is newer than this nspda reads (%d)", head.Version, nspda.FileVersion)
	}
	var env envelopeIn
	if err := nspda.UnmarshalStrict(data, &env, envelopeKeys...); err != nil {
		return nil, 0, err
	}
	spec, err := Lookup(env.Kind)
	if err != nil {
		return nil, 0, err
	}
	if err := checkSizes(env.Config, env.Params.Len(), env.Refine); err != nil {
		return nil, 0, fmt.Errorf("bad model file: %v", err)
	}
	params, err := env.Params.Decode(make([]float64, env.Params.Len()))
	if err != nil {
		return nil, 0, fmt.Errorf("not a valid model file: field \"params\": %s", jsonerr.Text(err))
	}
	m, err := spec.Load([]rune(env.Alphabet), env.Config, params)
	if err != nil {
		return nil, 0, err
	}
	return m, max(1, env.Refine), nil
}

// checkSizes refuses a config whose sizes the parameters in the file cannot
// fill, before a model of those sizes is allocated. Every registered model
// has at least one parameter per hidden unit per memory (its readout or its
// read weights), so hidden × max(stacks, 1) ≤ nparams; and the sizes and the
// refinement are within the bounds training is held to (limits.Sizes, as in
// experiment.Config.Validate), which bounds the quadratic terms. Other
// settings are left to the model's Load.
func checkSizes(config json.RawMessage, nparams, refine int) error {
	var sz struct {
		Hidden int `json:"hidden"`
		Stacks int `json:"stacks"`
	}
	if err := json.Unmarshal(config, &sz); err != nil {
		return fmt.Errorf("bad config: %s", jsonerr.Text(err))
	}
	if err := limits.Sizes(sz.Hidden, sz.Stacks); err != nil {
		return fmt.Errorf("config %v", err)
	}
	if err := limits.Check("eval_refine", refine, limits.Refine); err != nil {
		return err
	}
	if err := limits.Check("parameters", nparams, limits.Params); err != nil {
		return err
	}
	// Both are bounded by 2^12, so the product cannot overflow; sizes of 0
	// are the model's Load to refuse.
	if need := sz.Hidden * max(sz.Stacks, 1); need > nparams {
		return fmt.Errorf("config hidden = %d, stacks = %d needs at least %d parameters, the file has %d", sz.Hidden, sz.Stacks, need, nparams)
	}
	return nil
}

// CheckParams refuses, before it is allocated, a model of spec over alphabet
// with opt whose parameters would be more than limits.Params (the NSPDA
// checks its own shape; the other models' parameters grow as J², times a
// power of the alphabet for the higher-order ones, so that sizes within
// limits.Sizes can still ask for terabytes). The count is exact: every
// model's parameter count is a polynomial of degree at most 2 in its hidden
// units, read off small models of 1, 2 and 3 units. With opt.Hidden = 0
// (the model's default size, at most 40 units) there is nothing to check.
func CheckParams(spec nn.Spec, alphabet []rune, opt nn.Options) error {
	if opt.Hidden <= 0 || spec.Name == "nspda" {
		return nil
	}
	n, err := paramCount(spec, alphabet, opt)
	if err != nil {
		return nil // the model's New reports what cannot be built
	}
	if n > limits.Params {
		return fmt.Errorf("%s with %d hidden units over %d symbols has %d parameters, more than the limit of %d", spec.Name, opt.Hidden, len(alphabet), n, limits.Params)
	}
	return nil
}

// paramCount is the number of parameters of spec.New(alphabet, opt), from
// the counts c1, c2, c3 at 1, 2 and 3 hidden units: c(J) = a + bJ + cJ².
func paramCount(spec nn.Spec, alphabet []rune, opt nn.Options) (int, error) {
	var c [4]int
	for j := 1; j <= 3; j++ {
		small := opt
		small.Hidden = j
		m, err := spec.New(alphabet, small, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			return 0, err
		}
		c[j] = len(m.Params())
	}
	// With c(J) = a + bJ + cJ²: q1 = c2 - c1 = b + 3c, q2 = c3 - 2c2 + c1
	// = 2c, and c(J) = c1 + (J-1)·q1 + (J-1)(J-2)/2·q2. J is at most
	// limits.Units and the coefficients at most about limits.Alphabet², so
	// nothing overflows.
	q1, q2 := c[2]-c[1], c[3]-2*c[2]+c[1]
	J := opt.Hidden
	return c[1] + (J-1)*q1 + (J-1)*(J-2)/2*q2, nil
}
