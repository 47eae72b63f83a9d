package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/spf13/cobra"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/nn"
)

func newModels() *cobra.Command {
	var gname string
	cmd := &cobra.Command{
		Use:   "models [--grammar G]",
		Short: "List the trainable models with their parameter counts",
		Long: `models lists every model 'nspda train --model NAME' accepts, with a one-line
description and its parameter count at its default size over the grammar's
alphabet (the NSPDA at J = M + 4 state neurons, the middle of the paper's
third-order rule M + U(2,6), M being the PDA's states).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			lang, err := loadGrammar(gname)
			if err != nil {
				return err
			}
			// Printed at the end, so that a model too large for the grammar
			// gives an error and no partial table.
			w := new(bytes.Buffer)
			fmt.Fprintf(w, "%-14s %8s  %-9s  %s\n", "model", "params", "trained", "description")
			for _, spec := range model.Specs() {
				opt := nn.Options{}
				if spec.Size != nil {
					opt.Hidden = lang.PDA.M() + 4 // the NSPDA's J: the middle of M + U(2,6)
				}
				m, err := spec.New(lang.PDA.Alphabet, opt, rand.New(rand.NewPCG(1, 1)))
				if err != nil {
					// Not "%s: %v": the model named nspda would read as a second
					// "nspda:" prefix.
					return fmt.Errorf("the %s model over %s's %d symbols: %v", spec.Name, lang.Name, lang.PDA.L(), err)
				}
				algo := experiment.Config{Model: spec.Name}.Algorithm()
				fmt.Fprintf(w, "%-14s %8d  %-9s  %s\n", spec.Name, len(m.Params()), algo, spec.Description)
			}
			fmt.Fprintf(w, "\nmodel options (nspda train --opt KEY=VALUE) and their defaults:\n")
			for _, spec := range model.Specs() {
				if spec.Options != nil {
					b, err := json.Marshal(spec.Options())
					if err != nil {
						return err
					}
					fmt.Fprintf(w, "%-14s %s\n", spec.Name, b)
				}
			}
			_, err = w.WriteTo(cmd.OutOrStdout())
			return err
		},
	}
	cmd.Flags().StringVar(&gname, "grammar", "anbn", "grammar whose alphabet sizes the models")
	return cmd
}
