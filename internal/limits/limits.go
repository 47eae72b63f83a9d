// Package limits is the one place that bounds every size and count a user or
// a file can give nspda: PDA states, alphabet and transitions, hidden units,
// stacks, refinement iterations, string length and the size of every file it
// reads. Each bound is checked before anything of that size is allocated or
// run, and the error names the bound.
package limits

import (
	"fmt"
	"io"
	"os"
)

// The bounds. Each is generous for the paper's experiments (the largest
// stored configuration has 64 hidden units, 10 stacks and K = 4) and small
// enough that a model at the bound can still be built, trained for an epoch
// and evaluated on the test sets in bounded time and memory.
const (
	// States bounds a PDA's states (an NSPDA needs a state neuron for each).
	States = 4096
	// Alphabet bounds a PDA's or a model's input symbols.
	Alphabet = 256
	// Transitions bounds the rows of a PDA spec.
	Transitions = 1 << 16
	// Units bounds the hidden, state or action neurons of any model.
	Units = 1 << 12
	// Params bounds a model's parameters (512 MiB of float64).
	Params = 1 << 26
	// Stacks bounds the stacks or lists of a stack-RNN or list-RNN: each
	// costs O(string length) per step.
	Stacks = 64
	// Refine bounds the refinement iterations per symbol, in training (K)
	// and in classification.
	Refine = 100
	// Epochs bounds a training run's epochs.
	Epochs = 100000
	// Seeds bounds the runs per cell of a repro grid (--seeds); the paper
	// has 5.
	Seeds = 1000
	// StringLen bounds the symbols of one string to classify or evaluate.
	StringLen = 1 << 16
	// Strings bounds the strings of one generated or read dataset.
	Strings = 1 << 20
	// SpecBytes bounds the size of a PDA spec file.
	SpecBytes = 4 << 20
	// ModelBytes bounds the size of a model file.
	ModelBytes = 1 << 30
	// DataBytes bounds the size of a JSONL dataset file.
	DataBytes = 1 << 30
	// RunFileBytes bounds the size of a run's config, checkpoint, summary
	// or plan (a checkpoint holds a model's weights).
	RunFileBytes = 1 << 30
	// RecordBytes bounds the size of a run's config, summary and data
	// record (a configuration, test results, file hashes: kilobytes).
	RecordBytes = 16 << 20
)

// Check returns an error naming what and the bound if n is more than max.
func Check(what string, n, max int) error {
	if n > max {
		return fmt.Errorf("%s = %d is more than the limit of %d", what, n, max)
	}
	return nil
}

// Sizes checks the sizes a model is built with (0: the model's default),
// the one validation shared by training (experiment.Config.Validate) and
// model files (model.Load).
func Sizes(hidden, stacks int) error {
	switch {
	case hidden < 0:
		return fmt.Errorf("hidden must be positive (or 0 for the default), not %d", hidden)
	case stacks < 0:
		return fmt.Errorf("stacks must be positive (or 0 for the default), not %d", stacks)
	}
	if err := Check("hidden", hidden, Units); err != nil {
		return err
	}
	return Check("stacks", stacks, Stacks)
}

// ReadFile reads the file at path, refusing one of more than max bytes
// before reading it (and, for a file that grows meanwhile or a pipe, after
// max+1 bytes). what names the kind of file in the error.
func ReadFile(path, what string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return ReadAll(f, path, what, max)
	}
	if fi.Size() > max {
		return nil, tooBig(path, what, fi.Size(), max)
	}
	// The buffer is the file's size (and one byte to see that it has not
	// grown), not io.ReadAll's doublings, which allocate twice the file.
	b := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			// The file grew while it was read: read the rest, bounded.
			rest, err := io.ReadAll(io.LimitReader(f, max-int64(len(b))+1))
			if err != nil {
				return nil, err
			}
			if b = append(b, rest...); int64(len(b)) > max {
				return nil, tooBig(path, what, int64(len(b)), max)
			}
			return b, nil
		}
	}
}

// ReadAll reads r to its end, refusing more than max bytes.
func ReadAll(r io.Reader, path, what string, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, tooBig(path, what, int64(len(b)), max)
	}
	return b, nil
}

func tooBig(path, what string, n, max int64) error {
	return fmt.Errorf("%s: %s of %d bytes or more is more than the limit of %d bytes", path, what, n, max)
}
