package main

import (
	"fmt"
	"slices"

	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/nn"
)

// loadGrammar resolves --grammar: a built-in name or a PDA spec file.
func loadGrammar(name string) (*grammar.Language, error) {
	if name == "" {
		return nil, usagef("--grammar is required")
	}
	return grammar.Load(name)
}

// loaded is a model read from a file: any registered kind, with the number
// of refinement iterations it classifies with.
type loaded struct {
	nn.Model
	refine int
}

// loadModel reads --model.
func loadModel(path string) (*loaded, error) {
	if path == "" {
		return nil, usagef("--model is required")
	}
	m, refine, err := model.Load(path)
	if err != nil {
		return nil, err
	}
	return &loaded{m, refine}, nil
}

// classifier returns an evaluation-mode classifier for the model.
func (m *loaded) classifier() evaluate.Classifier { return model.Classifier(m.Model, m.refine) }

// checkAlphabet refuses a model whose alphabet is not the grammar's.
func checkAlphabet(m *loaded, lang *grammar.Language) error {
	if !slices.Equal(m.Alphabet(), lang.PDA.Alphabet) {
		return fmt.Errorf("model alphabet %q does not match grammar %s's alphabet %q", string(m.Alphabet()), lang.Name, string(lang.PDA.Alphabet))
	}
	return nil
}

// modelAlphabet returns a PDA over the model's alphabet with no transitions,
// used only to encode strings when no grammar is given.
func modelAlphabet(m *loaded) (*grammar.PDA, error) {
	return grammar.New(grammar.PDA{Name: "model", Alphabet: m.Alphabet(), States: []string{"q"}, Accept: []bool{false}})
}
