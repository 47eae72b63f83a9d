package main

import (
	"fmt"
	"slices"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
)

// loadGrammar resolves --grammar: a built-in name or a PDA spec file.
func loadGrammar(name string) (*grammar.Language, error) {
	if name == "" {
		return nil, usagef("--grammar is required")
	}
	return grammar.Load(name)
}

// loadModel reads --model.
func loadModel(path string) (*nspda.Model, error) {
	if path == "" {
		return nil, usagef("--model is required")
	}
	return nspda.ReadFile(path)
}

// checkAlphabet refuses a model whose alphabet is not the grammar's.
func checkAlphabet(m *nspda.Model, lang *grammar.Language) error {
	if !slices.Equal(m.Alphabet, lang.PDA.Alphabet) {
		return fmt.Errorf("model alphabet %q does not match grammar %s's alphabet %q", string(m.Alphabet), lang.Name, string(lang.PDA.Alphabet))
	}
	return nil
}

// modelAlphabet returns a PDA over the model's alphabet with no transitions, used
// only to encode strings when no grammar is given.
func modelAlphabet(m *nspda.Model) (*grammar.PDA, error) {
	return grammar.New(grammar.PDA{Name: "model", Alphabet: m.Alphabet, States: []string{"q"}, Accept: []bool{false}})
}
