package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/experiment"
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
		return nil, leftOut(path, err)
	}
	return &loaded{m, refine}, nil
}

// leftOut explains a missing model.json of a finished run in a store: the
// store keeps only some runs' weights, and restore makes the others again.
func leftOut(path string, err error) error {
	dir := filepath.Dir(path)
	if !errors.Is(err, fs.ErrNotExist) || filepath.Base(path) != experiment.ModelFile || !fileExists(filepath.Join(dir, experiment.SummaryFile)) {
		return err
	}
	return fmt.Errorf("%s: the store left this finished run's weights out; 'nspda restore %s --store %s' trains it again and writes them", path, filepath.Base(dir), filepath.Dir(dir))
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
func modelAlphabet(m *loaded) (*grammar.PDA, error) { return alphabetPDA(m.Alphabet()) }

// alphabetPDA is a PDA over alphabet with no transitions, to encode strings
// with.
func alphabetPDA(alphabet []rune) (*grammar.PDA, error) {
	return grammar.New(grammar.PDA{Name: "model", Alphabet: alphabet, States: []string{"q"}, Accept: []bool{false}})
}

// specName is the name a PDA file written to path gives its language: the
// file's base name without its extension, made valid UTF-8 (a spec file is
// UTF-8; a file name need not be).
func specName(path string) string {
	return strings.ToValidUTF8(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), "\uFFFD")
}

// flagGroup is the annotation of a flag that names its heading in its
// command's help (groupedUsage).
const flagGroup = "group"

// group puts the named flags of f under the heading group.
func group(f *pflag.FlagSet, group string, names ...string) {
	for _, n := range names {
		if err := f.SetAnnotation(n, flagGroup, []string{group}); err != nil {
			panic(err) // a flag of the command's own definition
		}
	}
}

// groupedUsage makes cmd's usage list its flags under their groups'
// headings, in the order given, then the flags of no group and the global
// ones.
func groupedUsage(cmd *cobra.Command, groups ...string) {
	cmd.SetUsageFunc(func(c *cobra.Command) error {
		var b strings.Builder
		fmt.Fprintf(&b, "Usage:\n  %s\n", c.UseLine())
		for _, g := range append(groups, "") {
			fs := pflag.NewFlagSet(g, pflag.ContinueOnError)
			c.LocalFlags().VisitAll(func(f *pflag.Flag) {
				if in := f.Annotations[flagGroup]; in == nil && g == "" || len(in) == 1 && in[0] == g {
					fs.AddFlag(f)
				}
			})
			if fs.HasFlags() {
				heading := "Other flags"
				if g != "" {
					heading = strings.ToUpper(g[:1]) + g[1:] + " flags"
				}
				fmt.Fprintf(&b, "\n%s:\n%s", heading, fs.FlagUsages())
			}
		}
		if c.HasAvailableInheritedFlags() {
			fmt.Fprintf(&b, "\nGlobal Flags:\n%s", c.InheritedFlags().FlagUsages())
		}
		_, err := io.WriteString(c.OutOrStderr(), b.String())
		return err
	})
}
