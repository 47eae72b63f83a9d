package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/nspda/nspda/internal/atomicfile"
)

// A store need not keep every run's weights: a finished run is its
// summary.json, and the tables read summaries, metrics and lengths.json.
// A run whose model.json was left out (docs/reliability.md, "The store") is
// re-created by Restore, which trains its configuration again and keeps the
// weights only if the training repeats the stored one: the same metrics,
// epoch by epoch, and the same summary, wall time aside. Training is
// deterministic for a given configuration, so that check is what makes the
// restored model.json the one the run wrote.

// ErrHasModel is returned by Restore for a run that still has its
// model.json.
var ErrHasModel = errors.New("the run has its model.json")

// Restore re-creates the model.json of the finished run key, training its
// configuration again in a temporary store under tmp ("": the system's) and
// moving the weights in if its metrics and summary are the stored ones. It
// holds the run's lock meanwhile.
func (s Store) Restore(ctx context.Context, key, tmp string, progress Progress) (*Summary, error) {
	dir := s.RunDir(key)
	stored, err := s.Summary(key)
	switch {
	case err != nil:
		return nil, err
	case stored == nil:
		return nil, fmt.Errorf("store %s has no finished run %s", s.Dir, key)
	case exists(filepath.Join(dir, ModelFile)):
		return stored, ErrHasModel
	}
	unlock, err := s.lock(key)
	if err != nil {
		return nil, err
	}
	defer unlock()
	unlockRun, err := lockRun(dir)
	if err != nil {
		return nil, err
	}
	defer unlockRun()
	work, err := os.MkdirTemp(tmp, "nspda-restore-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	again, _, err := Store{Dir: work}.Run(ctx, stored.Config, progress)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", key, err)
	}
	if err := sameRun(dir, filepath.Join(work, key), stored, again); err != nil {
		return nil, fmt.Errorf("run %s: %w", key, err)
	}
	b, err := os.ReadFile(filepath.Join(work, key, ModelFile))
	if err != nil {
		return nil, err
	}
	return stored, atomicfile.WriteFile(filepath.Join(dir, ModelFile), b)
}

// sameRun checks that the run trained again in dir2 (summary again) repeats
// the stored one in dir (summary stored): its metrics byte for byte and its
// summary wall time aside.
func sameRun(dir, dir2 string, stored, again *Summary) error {
	if same, field := sameSummary(stored, again); !same {
		return fmt.Errorf("trained again, its summary differs from the stored one in %q, so the stored weights cannot be re-created by this version of nspda", field)
	}
	a, err := readMetrics(dir)
	if err != nil {
		return err
	}
	b, err := readMetrics(dir2)
	if err != nil {
		return err
	}
	if i := firstDiffLine(a, b); i > 0 {
		return fmt.Errorf("trained again, its %s differs from the stored one at line %d, so the stored weights cannot be re-created by this version of nspda", MetricsFile, i)
	}
	return nil
}

// readMetrics returns the bytes of the metrics of the run in dir.
func readMetrics(dir string) ([]byte, error) {
	b, err := ReadMetrics(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s to check a re-created run against", dir, MetricsFile)
	}
	return b, err
}

// firstDiffLine is the first line (from 1) where a and b differ, 0 if they
// are equal.
func firstDiffLine(a, b []byte) int {
	if bytes.Equal(a, b) {
		return 0
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return bytes.Count(a[:i], []byte{'\n'}) + 1
}
