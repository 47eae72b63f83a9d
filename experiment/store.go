package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/nspda/nspda/internal/limits"
)

// Store is a results directory holding one run directory per configuration,
// named by its Config.Key():
//
//	DIR/<key>/config.json, metrics.jsonl, timing.jsonl, checkpoint.json,
//	          model.json, summary.json (see Train), lengths.json (see Lengths)
//	DIR/.locks/<key>.lock   held while a process works on <key>
//
// A run is finished when its summary.json exists, started when only its
// config.json does. Several processes (a worker pool, Slurm array tasks) may
// share a Store on one file system: a run is locked while it trains.
type Store struct {
	Dir string
}

// runState is how far a run in a Store has got.
type runState int

// The states of a run.
const (
	runMissing  runState = iota // nothing of the run is stored
	runStarted                  // config.json but no summary.json: killed or failed; Run resumes it
	runFinished                 // summary.json
)

// Outcome says what Store.Run did.
type Outcome int

// The outcomes of Store.Run.
const (
	Skipped Outcome = iota // already finished
	Resumed                // continued from its checkpoint
	Trained                // trained from the start
)

// String names the outcome: skipped, resumed or trained.
func (o Outcome) String() string { return [...]string{"skipped", "resumed", "trained"}[o] }

// RunDir is the directory of the run with the given key.
func (s Store) RunDir(key string) string { return filepath.Join(s.Dir, key) }

// Finished reports whether the run with the given key is finished: its
// summary.json exists.
func (s Store) Finished(key string) bool { return s.state(key) == runFinished }

// state reports how far the run with the given key has got.
func (s Store) state(key string) runState {
	dir := s.RunDir(key)
	if exists(filepath.Join(dir, SummaryFile)) {
		return runFinished
	}
	if exists(filepath.Join(dir, ConfigFile)) {
		return runStarted
	}
	return runMissing
}

// Summary returns the finished run's summary, or nil if the run is not
// finished. A summary that is not the run of key is an error.
func (s Store) Summary(key string) (*Summary, error) {
	sum, err := ReadSummary(s.RunDir(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%v (a damaged result: remove %s and run again to retrain it)", err, s.RunDir(key))
	}
	if sum.Key != key {
		return nil, fmt.Errorf("store %s: directory %s holds the summary of run %s", s.Dir, key, sum.Key)
	}
	return sum, nil
}

// ReadSummary reads dir's summary.json and checks that its key is its
// configuration's.
func ReadSummary(dir string) (*Summary, error) {
	path := filepath.Join(dir, SummaryFile)
	b, err := limits.ReadFile(path, "summary", limits.RecordBytes)
	if err != nil {
		return nil, err
	}
	sum, err := decodeSummary(path, b)
	if err != nil {
		return nil, err
	}
	if k := sum.Config.Key(); sum.Key != k {
		return nil, fmt.Errorf("%s: key %s is not its configuration's (%s)", path, sum.Key, k)
	}
	return sum, nil
}

// Run makes sure cfg is finished in the store and returns its summary: it
// skips a finished run, resumes a started one (Train with resume), and
// trains a missing one. It holds the run's lock meanwhile, so a run that
// another process is training is waited for, then skipped.
func (s Store) Run(ctx context.Context, cfg Config, progress Progress) (*Summary, Outcome, error) {
	if err := cfg.Validate(); err != nil {
		return nil, Skipped, err
	}
	key := cfg.Key()
	unlock, err := s.lock(key)
	if err != nil {
		return nil, Skipped, err
	}
	defer unlock()
	if sum, err := s.Summary(key); sum != nil || err != nil {
		return sum, Skipped, err
	}
	dir := s.RunDir(key)
	if s.state(key) == runStarted {
		old, err := readConfig(dir)
		if err != nil {
			return nil, Skipped, err
		}
		if old.Key() != key {
			return nil, Skipped, fmt.Errorf("store %s: directory %s holds the config of run %s", s.Dir, key, old.Key())
		}
		sum, err := Train(ctx, cfg, dir, true, progress)
		return sum, Resumed, err
	}
	sum, err := Train(ctx, cfg, dir, false, progress)
	return sum, Trained, err
}

// lock takes the run's lock file, waiting for another holder.
func (s Store) lock(key string) (unlock func(), err error) {
	dir := filepath.Join(s.Dir, ".locks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return lockFile(filepath.Join(dir, key+".lock"))
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// sameSummary reports whether two summaries are equal except for their wall
// time, and if not, the first JSON field (in name order) that differs.
func sameSummary(a, b *Summary) (bool, string) {
	fa, fb := summaryFields(a), summaryFields(b)
	for _, name := range sortedKeys(fa, fb) {
		if !bytes.Equal(fa[name], fb[name]) {
			return false, name
		}
	}
	return true, ""
}

func summaryFields(s *Summary) map[string]json.RawMessage {
	c := *s
	c.WallSeconds = 0
	b, _ := json.Marshal(c)
	var m map[string]json.RawMessage
	_ = json.Unmarshal(b, &m)
	return m
}
