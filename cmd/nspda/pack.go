package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/nspda/nspda/experiment"
)

func newPack() *cobra.Command {
	var store string
	cmd := &cobra.Command{
		Use:   "pack [KEY...] [--store DIR]",
		Short: "Gzip the metrics and timing of finished runs in a results store",
		Long: `pack compresses the metrics.jsonl and timing.jsonl of the named finished
runs (all of the store's, without keys) to metrics.jsonl.gz and
timing.jsonl.gz, about a sixth of the size. Every command reads either form.
The gzip bytes depend only on the file's, so the same run packs the same
everywhere. Each packed file is read back before the plain one is removed.`,
		RunE: func(cmd *cobra.Command, keys []string) error {
			if len(keys) == 0 {
				var err error
				if keys, err = finishedKeys(store); err != nil {
					return err
				}
			}
			s := experiment.Store{Dir: store}
			n := 0
			for _, key := range keys {
				ok, err := s.Pack(key)
				if err != nil {
					return err
				}
				if ok {
					n++
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "packed %d of %d runs in %s\n", n, len(keys), store)
			return nil
		},
	}
	cmd.Flags().StringVar(&store, "store", "results", "results store")
	return cmd
}

// finishedKeys lists the finished runs of store.
func finishedKeys(store string) ([]string, error) {
	entries, err := os.ReadDir(store)
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, e := range entries {
		if e.IsDir() && fileExists(filepath.Join(store, e.Name(), experiment.SummaryFile)) {
			keys = append(keys, e.Name())
		}
	}
	return keys, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
