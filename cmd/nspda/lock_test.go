package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/train"
)

// TestLockTrainSameOut: a second `nspda train` into the --out of a run in
// progress exits 1 with one line naming the directory and the holder's pid
// (both used to exit 0, leaving a mixture of the two runs); the first run
// finishes as if alone.
func TestLockTrainSameOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	cfg := smallConfig()
	cfg.MaxEpochs = 2
	started, release, done := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() {
		first := true
		_, err := experiment.Train(context.Background(), cfg, dir, false, func(train.Metrics, float64) {
			if first {
				first = false
				close(started)
				<-release
			}
		})
		done <- err
	}()
	<-started
	for _, args := range [][]string{
		{"train", "--quiet", "--max-epochs", "1", "--seed", "2", "--curriculum", "standard", "--out", dir},
		{"train", "--quiet", "--resume", dir},
	} {
		_, errs, code := cli(t, args...)
		if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "another run is writing this directory") ||
			!strings.Contains(errs, fmt.Sprintf("pid %d,", os.Getpid())) {
			t.Errorf("%q: exit %d, stderr %q; want 1 and one line naming the holder", args, code, errs)
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if sum, err := experiment.ReadSummary(dir); err != nil || sum.Key != cfg.Key() {
		t.Fatalf("summary %v; want the first run's", err)
	}
}
