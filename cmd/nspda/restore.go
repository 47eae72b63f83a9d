package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/nspda/nspda/experiment"
)

func newRestore() *cobra.Command {
	var (
		store   string
		missing bool
	)
	cmd := &cobra.Command{
		Use:   "restore KEY... | --missing [--store DIR]",
		Short: "Re-create the weights (model.json) a results store left out, by training the runs again",
		Long: `restore trains each named finished run of the store again from its stored
configuration, in a temporary directory, and moves its model.json into the
run's directory if the training repeated the stored run: metrics.jsonl byte
for byte and summary.json wall time aside. Otherwise it refuses (exit status
1) and leaves the run as it was. --missing restores every finished run that
has no model.json. The store in the repository keeps the weights only of the
runs a document, figure or test reads (docs/reliability.md, "The store").`,
		RunE: func(cmd *cobra.Command, keys []string) error {
			switch {
			case missing && len(keys) > 0:
				return usagef("give run keys or --missing, not both")
			case !missing && len(keys) == 0:
				return usagef("give the keys of the runs to restore, or --missing")
			}
			s := experiment.Store{Dir: store}
			if missing {
				var err error
				if keys, err = withoutModel(store); err != nil {
					return err
				}
			}
			for _, key := range keys {
				start := time.Now()
				_, err := s.Restore(cmd.Context(), key, "", nil)
				switch {
				case errors.Is(err, experiment.ErrHasModel):
					fmt.Fprintf(cmd.OutOrStdout(), "%s: has its model.json already\n", key)
				case err != nil:
					return err
				default:
					fmt.Fprintf(cmd.OutOrStdout(), "%s: restored, its training repeated (%.1fs)\n", key, time.Since(start).Seconds())
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&store, "store", "results", "results store")
	f.BoolVar(&missing, "missing", false, "restore every finished run without its model.json")
	return cmd
}

// withoutModel lists the finished runs of store that have no model.json.
func withoutModel(store string) ([]string, error) {
	all, err := finishedKeys(store)
	var keys []string
	for _, key := range all {
		if !fileExists(filepath.Join(store, key, experiment.ModelFile)) {
			keys = append(keys, key)
		}
	}
	return keys, err
}
