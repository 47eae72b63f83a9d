package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/nspda/nspda/experiment"
)

func newRun() *cobra.Command {
	var (
		plan, store string
		index       int
	)
	cmd := &cobra.Command{
		Use:   "run --plan FILE --index N [--store DIR]",
		Short: "Run one entry of a plan into a results store (a Slurm array task)",
		Long: `run trains entry N of a plan written by 'nspda repro TABLE --plan FILE' (or
--emit-slurm) into the store. It is idempotent: a finished run is skipped, a
killed one resumed from its checkpoint, and a run another process is training
is waited for.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if plan == "" {
				return usagef("--plan is required")
			}
			if !cmd.Flags().Changed("index") {
				return usagef("--index is required")
			}
			p, err := experiment.ReadPlan(plan)
			if err != nil {
				return err
			}
			switch {
			case len(p) == 0:
				return fmt.Errorf("plan %s has no runs", plan)
			case index < 0 || index >= len(p):
				return usagef("--index must be from 0 to %d (plan %s has %d runs), not %d", len(p)-1, plan, len(p), index)
			}
			start := time.Now()
			sum, outcome, err := experiment.Store{Dir: store}.Run(cmd.Context(), p[index].Config, nil)
			if errors.Is(err, context.Canceled) {
				return fmt.Errorf("run %d (%s): %s", index, p[index].Key, resumeHint)
			}
			if err != nil {
				return fmt.Errorf("run %d (%s): %v", index, p[index].Key, err)
			}
			seconds := 0.0
			if outcome != experiment.Skipped {
				seconds = time.Since(start).Seconds()
			}
			fmt.Fprintf(cmd.OutOrStdout(), "[%d] %s\n", index, runLine(p[index].Config, sum, outcome, seconds))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&plan, "plan", "", "plan file (JSON lines)")
	f.IntVar(&index, "index", 0, "entry of the plan to run, from 0")
	f.StringVar(&store, "store", "results", "results store")
	return cmd
}
