package experiment

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/grammar"
)

// TestTrainingSeesNoTestSet: a run without Tests (a search trial of the
// fair table) draws no test set; and with its test sets corrupted (the
// first ten strings, labels flipped) a run trains to the same metrics and
// weights; only its test errors see the corruption.
func TestTrainingSeesNoTestSet(t *testing.T) {
	orig := testSplit
	defer func() { testSplit = orig }()
	var drawn atomic.Int32
	testSplit = func(*grammar.Language, string, uint64) ([]dataset.Example, error) {
		drawn.Add(1)
		return nil, errors.New("a run without tests drew a test set")
	}
	c := small()
	c.MaxEpochs, c.Tests = 2, nil
	if _, err := Train(context.Background(), c, t.TempDir(), false, nil); err != nil || drawn.Load() != 0 {
		t.Fatalf("no tests: %v, %d test sets drawn", err, drawn.Load())
	}

	corrupt := func(lang *grammar.Language, name string, seed uint64) ([]dataset.Example, error) {
		ex, err := orig(lang, name, seed)
		ex = ex[:10]
		for i := range ex {
			ex[i].Label = 1 - ex[i].Label
		}
		return ex, err
	}
	c.Tests = []string{"test60"}
	dirs := []string{t.TempDir(), t.TempDir()}
	for i, split := range []func(*grammar.Language, string, uint64) ([]dataset.Example, error){orig, corrupt} {
		testSplit = split
		sum, err := Train(context.Background(), c, dirs[i], false, nil)
		if err != nil {
			t.Fatal(err)
		}
		if corrupted := len(sum.Sets) == 1 && sum.Sets[0].Strings == 10; corrupted != (i == 1) {
			t.Errorf("run %d: test sets %+v", i, sum.Sets)
		}
	}
	for _, f := range []string{MetricsFile, ModelFile} {
		if !bytes.Equal(read(t, filepath.Join(dirs[0], f)), read(t, filepath.Join(dirs[1], f))) {
			t.Errorf("%s differs with the test set corrupted", f)
		}
	}
}
