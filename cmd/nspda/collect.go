package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nspda/nspda/experiment"
)

func newCollect() *cobra.Command {
	var (
		from  []string
		store string
	)
	cmd := &cobra.Command{
		Use:   "collect --from DIR [--from DIR...] [--store DIR]",
		Short: "Merge finished runs from other stores or machines into a results store",
		Long: `collect copies every finished run (a directory with a summary.json) found
under the --from directories (or arguments) into the store. A run the store
already has with the same summary, wall time aside, is skipped; one whose
summary differs is refused and reported (exit status 1), the others are still
merged. A run that cannot be read (a damaged summary.json) is reported and
skipped (exit status 1), the others are still merged; so is a run holding a
symbolic link or a special file, whose files would not all be copied. A
finished run replaces an unfinished one of the same configuration (not while
a 'train --resume' holds it). A store that collect creates and copies no run
into is removed again.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			from = append(from, args...)
			if len(from) == 0 {
				return usagef("give the directories to collect from with --from")
			}
			if err := checkFromDirs(from); err != nil {
				return err
			}
			rep, err := experiment.Store{Dir: store}.Collect(from...)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "collected into %s: %d new, %d replacing unfinished runs, %d already there, %d conflicting, %d unreadable\n",
				store, rep.Copied, rep.Replaced, rep.Identical, len(rep.Conflicts), len(rep.Failed))
			for _, err := range rep.Failed {
				fmt.Fprintf(w, "not collected: %v\n", err)
			}
			if len(rep.Failed) > 0 && len(rep.Conflicts) == 0 {
				return fmt.Errorf("%d runs not collected, they could not be read (listed above); the others were merged", len(rep.Failed))
			}
			if len(rep.Conflicts) > 0 {
				msgs := make([]string, len(rep.Conflicts))
				for i, c := range rep.Conflicts {
					msgs[i] = c.String()
				}
				return fmt.Errorf("%d runs not collected, their summaries differ from the store's: %s", len(rep.Conflicts), strings.Join(msgs, "; "))
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&from, "from", nil, "directory of finished runs: a store, a run directory or a tree of them (repeatable)")
	cmd.Flags().StringVar(&store, "store", "results", "results store to merge into")
	return cmd
}

// checkFromDirs refuses a --from that is not a directory: a file or a typo
// would otherwise collect nothing and exit 0 as if the store were empty.
func checkFromDirs(from []string) error {
	for _, d := range from {
		fi, err := os.Stat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%s: no such directory (--from)", d)
		case err != nil:
			return fmt.Errorf("%s: %w", d, errors.Unwrap(err))
		case !fi.IsDir():
			return fmt.Errorf("%s: not a directory; --from takes a store, a run directory or a tree of them", d)
		}
	}
	return nil
}
