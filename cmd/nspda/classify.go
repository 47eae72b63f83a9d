package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
)

func newClassify() *cobra.Command {
	var (
		mpath string
		trace bool
	)
	cmd := &cobra.Command{
		Use:   "classify --model M [--trace] STRING...",
		Short: "Accept or reject strings with a model",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("give at least one string to classify")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := loadModel(mpath)
			if err != nil {
				return err
			}
			alpha, err := modelAlphabet(m)
			if err != nil {
				return err
			}
			run := m.classifier()
			net, isNSPDA := m.Model.(*nspda.Net)
			if trace && !isNSPDA {
				return usagef("--trace shows the NSPDA's states and stack; %s models have neither", m.Kind())
			}
			// Encode every string before printing anything, so that a bad
			// string gives an error and no partial output.
			encoded := make([][]int, len(args))
			for i, s := range args {
				if encoded[i], err = alpha.Encode(s); err != nil {
					return fmt.Errorf("string %q (argument %d): %v", s, i+1, err)
				}
			}
			w := cmd.OutOrStdout()
			for i, s := range args {
				syms := encoded[i]
				if trace {
					traceString(w, net.Model, net.Model.NewRunner(), alpha, syms)
				}
				ok, y := run.Classify(syms)
				verdict := "reject"
				if ok {
					verdict = "accept"
				}
				fmt.Fprintf(w, "%s  y=%.4f  %q\n", verdict, y, s)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&mpath, "model", "", "model file")
	cmd.Flags().BoolVar(&trace, "trace", false, "print every step: input, active state neurons, stack action, stack")
	return cmd
}

// traceString prints one line per step of syms followed by the end marker.
func traceString(w io.Writer, m *nspda.Model, run *nspda.Runner, alpha *grammar.PDA, syms []int) {
	run.Reset()
	fmt.Fprintf(w, "%4s  %-5s  %-20s  %-6s  %-8s  %s\n", "step", "input", "state", "action", "y", "stack (bottom..top)")
	fmt.Fprintf(w, "%4d  %-5s  %-20s  %-6s  %-8.4f  %s\n", 0, "", active(m, run), "", run.Prediction(), "")
	for t := 0; t <= len(syms); t++ {
		l, in := m.L, string(grammar.EndMarker)
		if t < len(syms) {
			l, in = syms[t], string(m.Alphabet[syms[t]])
		}
		op := run.Step(l)
		action := op.String()
		if l == m.L {
			action = "-"
		}
		fmt.Fprintf(w, "%4d  %-5s  %-20s  %-6s  %-8.4f  %s\n", t+1, in, active(m, run), action, run.Prediction(), alpha.Decode(run.Stack.Symbols()))
	}
}

func active(m *nspda.Model, run *nspda.Runner) string {
	var names []string
	for _, j := range run.Active() {
		names = append(names, m.NeuronName(j))
	}
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ",")
}
