package main

import (
	"fmt"
	"math"

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
			if err := checkStrengths(opt, order); err != nil {
				return err
			}
			lang, err := loadGrammar(gname)
			if err != nil {
				return err
			}
			if lo, hi := program.FeasibleHA(lang.PDA.L()); order == 3 && opt.HA != 0 && lo < hi && (opt.HA <= lo || opt.HA >= hi) {
				return usagef("--ha must lie strictly between %.3f and %.3f for %s's %d symbols, not %g", lo, hi, lang.Name, lang.PDA.L(), opt.HA)
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
	f.Float64Var(&opt.H, "h", 6, fmt.Sprintf("state weight strength H, above 0 and at most %g", float64(maxStrength)))
	f.Float64Var(&opt.HA, "ha", 0, "third-order action weight strength, inside an interval set by the alphabet's size (0: 1, or the interval's middle when 1 lies outside it)")
	f.BoolVar(&opt.Dead, "dead", false, "add an explicit dead-state neuron for missing transitions")
	f.BoolVar(&dump, "dump", false, "print the compiled program")
	return cmd
}

// maxStrength bounds --h, as the hint strength of training is bounded
// (experiment/bounds.go): the biases are −1.5H, and a far larger H
// overflows to a non-finite weight.
const maxStrength = 1000

// checkStrengths refuses a non-finite or out-of-range --h or --ha before
// anything is compiled. --ha's interval, which depends on the alphabet, is
// checked once the grammar is read.
func checkStrengths(opt program.Options, order int) error {
	switch {
	case math.IsNaN(opt.H) || opt.H <= 0 || opt.H > maxStrength:
		return usagef("--h must be above 0 and at most %g, not %g", float64(maxStrength), opt.H)
	case math.IsNaN(opt.HA) || math.IsInf(opt.HA, 0) || opt.HA < 0:
		return usagef("--ha must be a finite number above 0 (0: the default), not %g", opt.HA)
	case opt.HA != 0 && order != 3:
		return usagef("--ha is the third order's action strength: not with --order %d", order)
	}
	return nil
}

// noArgs refuses positional arguments as a usage error.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	return nil
}
