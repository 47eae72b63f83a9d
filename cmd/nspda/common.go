package main

import (
	"fmt"
	"strconv"
	"strings"

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

// checkAlphabet refuses a model whose symbols are not the grammar's. The
// same symbols in another order are the same alphabet: a model learned from
// data keeps its symbols sorted, a PDA file in the order it lists them, and
// strings reach the model through its own alphabet (modelAlphabet).
func checkAlphabet(m *loaded, lang *grammar.Language) error {
	return sameSymbols(m.Alphabet(), lang)
}

func sameSymbols(model []rune, lang *grammar.Language) error {
	onlyModel, onlyGrammar := grammar.AlphabetDiff(model, lang.PDA.Alphabet)
	if len(onlyModel)+len(onlyGrammar) == 0 {
		return nil
	}
	var differ []string
	if len(onlyModel) > 0 {
		differ = append(differ, fmt.Sprintf("%s only in the model", quoteSymbols(onlyModel)))
	}
	if len(onlyGrammar) > 0 {
		differ = append(differ, fmt.Sprintf("%s only in the grammar", quoteSymbols(onlyGrammar)))
	}
	return fmt.Errorf("model alphabet %q and grammar %s's alphabet %q differ: %s",
		string(model), lang.Name, string(lang.PDA.Alphabet), strings.Join(differ, ", "))
}

// quoteSymbols lists symbols as 'a' 'b'.
func quoteSymbols(rs []rune) string {
	q := make([]string, len(rs))
	for i, r := range rs {
		q[i] = strconv.QuoteRune(r)
	}
	return strings.Join(q, " ")
}

// modelAlphabet returns a PDA over the model's alphabet with no transitions,
// used only to encode strings when no grammar is given.
func modelAlphabet(m *loaded) (*grammar.PDA, error) {
	return grammar.New(grammar.PDA{Name: "model", Alphabet: m.Alphabet(), States: []string{"q"}, Accept: []bool{false}})
}
