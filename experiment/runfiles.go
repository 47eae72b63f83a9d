package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/nspda/nspda/internal/jsonbound"
	"github.com/nspda/nspda/internal/jsonerr"
	"github.com/nspda/nspda/internal/limits"
	"github.com/nspda/nspda/train"
)

// The reading of a run's summary and checkpoints. Each file is within its
// size bound, and its values are counted (jsonbound.Values, which allocates
// nothing) and bounded by what the run can have written before any is
// decoded: encoding/json spends 8 bytes on the two of "0," and a whole
// struct on the three of "{},", so the file's size alone bounds little.

// recordValues bounds the values of a run's config, summary or data
// record: a configuration and one result per test set make about a
// hundred in the stored runs.
const recordValues = 1 << 16

// checkRecord refuses the record b at path (a config, summary or data
// record) if it has more than recordValues values.
func checkRecord(path string, b []byte) error {
	if n, ok := jsonbound.Values(b); ok && n > recordValues {
		return fmt.Errorf("%s: %d values, more than the limit of %d for a run's record", path, n, recordValues)
	}
	return nil
}

// readRecord reads the record at path (a config or data record), bounded
// by limits.RecordBytes and recordValues.
func readRecord(path, what string) ([]byte, error) {
	b, err := limits.ReadFile(path, what, limits.RecordBytes)
	if err != nil {
		return nil, err
	}
	return b, checkRecord(path, b)
}

// decodeSummary decodes the summary at path from its bytes b, refusing more
// test sets than its configuration evaluates.
func decodeSummary(path string, b []byte) (*Summary, error) {
	if err := checkRecord(path, b); err != nil {
		return nil, err
	}
	var sum Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		return nil, fmt.Errorf("%s: %s", path, jsonerr.Text(err))
	}
	if max := maxSets(sum.Config); len(sum.Sets) > max {
		return nil, fmt.Errorf("%s: %d test sets, more than its configuration evaluates (%d)", path, len(sum.Sets), max)
	}
	return &sum, nil
}

// maxSets bounds the test sets of a summary of cfg: the sets a run of cfg
// evaluates (tests: its named sets, or each test file and its length
// bands, byLength), and extraSets more, so that a summary given a few
// results by hand (as tables' tests do) still reads.
func maxSets(cfg Config) int {
	n := len(cfg.Tests)
	if cfg.Data != "" {
		n = len(bandEdges) * len(cfg.TestData) // each file and its bands
	}
	return n + extraSets
}

// extraSets is how many test sets beyond its configuration's a summary may
// hold.
const extraSets = 8

// checkpointValues bounds the values of a checkpoint of a run on s's
// network: the network's parameters, its kept best and selected weights,
// Adam's two moments and the heads' parameters hold at most as many
// values as the network and its heads have parameters, and the rest (the
// random streams, the curriculum, the last report) a few hundred.
func checkpointValues(s *setup) int {
	n := len(s.net.Params())
	for _, h := range s.env.Obj.Heads() {
		n += len(h.Params)
	}
	return 6*n + 1<<16
}

// readCheckpointFile reads the checkpoint at path (nil if there is none),
// refusing one of more than maxValues values (checkpointValues) before
// decoding it.
func readCheckpointFile(path string, maxValues int) (*train.Checkpoint, error) {
	b, err := limits.ReadFile(path, "checkpoint", limits.RunFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if n, ok := jsonbound.Values(b); ok && n > maxValues {
		return nil, fmt.Errorf("cannot resume: %s: %d values, more than a checkpoint of this run's network can hold (%d) (remove the run directory to start over)", path, n, maxValues)
	}
	var c train.Checkpoint
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, checkpointError(path, err)
	}
	return &c, nil
}

// checkpointEpoch returns the epoch of the checkpoint at path (0 if there
// is none), decoding nothing else: encoding/json skips the other fields
// without allocating them.
func checkpointEpoch(path string) (int, error) {
	b, err := limits.ReadFile(path, "checkpoint", limits.RunFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var c struct {
		Epoch int `json:"epoch"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return 0, checkpointError(path, err)
	}
	return c.Epoch, nil
}

// readCheckpoint reads dir's checkpoint of a run on s's network (nil if
// there is none: killed before the first epoch ended, start over).
func readCheckpoint(dir string, s *setup) (*train.Checkpoint, error) {
	return readCheckpointFile(filepath.Join(dir, CheckpointFile), checkpointValues(s))
}

// readPaperSize reads the paper-size phase's last checkpoint of a run of the
// size rule "both" in dir (nil if that phase has not ended), bounded by s's
// network: the paper-size one, or the wide one, which is larger.
func readPaperSize(dir string, s *setup) (*train.Checkpoint, error) {
	return readCheckpointFile(filepath.Join(dir, paperSizeFile), checkpointValues(s))
}
