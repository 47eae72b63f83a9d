package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/program"
)

func newProgram() *cobra.Command {
	var (
		gname, out string
		order      int
		opt        program.Options
		dump       bool
	)
	cmd := &cobra.Command{
		Use:   "program --grammar G --order 2|3 --out model.json",
		Short: "Compile a PDA into NSPDA weights (rule insertion)",
		Long: `program compiles a grammar's deterministic PDA into the weights of a second-
or third-order NSPDA by orthogonal state encoding, and writes the model file.
The programmed network classifies every string exactly as the PDA does.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("--out is required")
			}
			if order != 2 && order != 3 {
				return usagef("--order must be 2 or 3, not %d", order)
			}
			lang, err := loadGrammar(gname)
			if err != nil {
				return err
			}
			opt.Order = nspda.Order(order)
			prog, err := program.Compile(lang.PDA, opt)
			if err != nil {
				return err
			}
			m := prog.Model()
			if err := m.WriteFile(out); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if dump {
				fmt.Fprint(w, prog)
			}
			fmt.Fprintf(w, "programmed %s into an order-%d NSPDA: J=%d state neurons, A=%d action neurons, %d parameters (%d set) -> %s\n",
				lang.Name, order, m.J, m.A, len(m.Params), len(prog.Sets), out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&gname, "grammar", "", "grammar: a built-in name or a PDA .yaml file")
	f.IntVar(&order, "order", 3, "tensor order: 2 (M1) or 3 (M2)")
	f.StringVar(&out, "out", "", "model file to write")
	f.Float64Var(&opt.H, "h", 6, "state weight strength H")
	f.Float64Var(&opt.HA, "ha", 0, "third-order action weight strength (default 1, within program.FeasibleHA)")
	f.BoolVar(&opt.Dead, "dead", false, "add an explicit dead-state neuron for missing transitions")
	f.BoolVar(&dump, "dump", false, "print the compiled program")
	return cmd
}

// noArgs refuses positional arguments as a usage error.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	return nil
}
