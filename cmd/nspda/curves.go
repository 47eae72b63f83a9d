package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nspda/nspda/tables"
)

func newCurves() *cobra.Command {
	var out, caption string
	cmd := &cobra.Command{
		Use:   "curves --out FILE.png|FILE.svg RUN_DIR...",
		Short: "Plot training accuracy against epoch for training runs",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("give at least one run directory")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("--out is required")
			}
			if err := tables.PlotCurves(out, caption, args); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d runs -> %s\n", len(args), out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "figure to write (.png or .svg)")
	cmd.Flags().StringVar(&caption, "title", "", "figure title")
	return cmd
}
