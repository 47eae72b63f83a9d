package experiment

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nspda/nspda/internal/atomicfile"
)

// TestResumeAfterFinishCrash: a run killed at each point of its finishing
// sequence (after model.json, after summary.json) leaves a directory that
// is resumable or finished, and resuming it ends exactly like a run never
// killed: the same summary (wall time aside) and model, and no checkpoint.
// A model.json without a summary.json is the sequence cut short, not a
// result: Status reports the run unfinished, and the resume removes it
// before training.
func TestResumeAfterFinishCrash(t *testing.T) {
	cfg := small()
	cfg.MaxEpochs = 2
	whole := t.TempDir()
	want, err := Train(context.Background(), cfg, whole, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantModel := read(t, filepath.Join(whole, ModelFile))
	killed := errors.New("killed")
	for _, point := range []string{ModelFile, SummaryFile} {
		dir := t.TempDir()
		crashPoint = func(p string) error {
			if p == point {
				return killed
			}
			return nil
		}
		_, err := Train(context.Background(), cfg, dir, false, nil)
		crashPoint = func(string) error { return nil }
		if !errors.Is(err, killed) {
			t.Fatalf("killed after %s: %v", point, err)
		}
		st, err := Status(dir)
		if err != nil || st.Finished != (point == SummaryFile) {
			t.Errorf("killed after %s: status %+v, %v", point, st, err)
		}
		if point == ModelFile {
			for _, f := range []string{ModelFile, CheckpointFile} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Fatalf("killed after model.json: %v", err)
				}
			}
			// A resume that fails at once (on a damaged checkpoint) has
			// removed the stale model first; the run, its checkpoint
			// restored, is still resumable.
			cp := filepath.Join(dir, CheckpointFile)
			good := read(t, cp)
			os.WriteFile(cp, []byte("{"), 0o644)
			if _, err := Train(context.Background(), cfg, dir, true, nil); err == nil {
				t.Fatal("resume on a damaged checkpoint succeeded")
			}
			os.WriteFile(cp, good, 0o644)
			if _, err := os.Stat(filepath.Join(dir, ModelFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a resume left the stale model.json (%v)", err)
			}
			if st, err := Status(dir); err != nil || st.Finished || st.Epoch != cfg.MaxEpochs {
				t.Errorf("after a resume cut short: status %+v, %v; want resumable after epoch %d", st, err, cfg.MaxEpochs)
			}
		}
		got, err := Train(context.Background(), cfg, dir, true, nil)
		if err != nil {
			t.Fatalf("resume after a kill after %s: %v", point, err)
		}
		if same, field := sameSummary(want, got); !same {
			t.Errorf("killed after %s: summary field %s differs from the run never killed", point, field)
		}
		if !bytes.Equal(read(t, filepath.Join(dir, ModelFile)), wantModel) {
			t.Errorf("killed after %s: model.json differs from the run never killed", point)
		}
		for _, f := range []string{CheckpointFile, paperSizeFile, runLockFile} {
			if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("killed after %s: %s left after the resume (%v)", point, f, err)
			}
		}
	}
}

// TestRunFileBound: a run file (checkpoint, config, summary) over the bound
// its reader applies is refused before it is written, one line naming it,
// so that a run never leaves a checkpoint its resume refuses; at the bound
// it is written as atomicfile.WriteJSON writes it.
func TestRunFileBound(t *testing.T) {
	dir := t.TempDir()
	want := filepath.Join(dir, "want.json")
	v := &Summary{Key: "k", Epochs: 3}
	if err := atomicfile.WriteJSON(want, v); err != nil {
		t.Fatal(err)
	}
	size := int64(len(read(t, want)))
	path := filepath.Join(dir, CheckpointFile)
	err := writeJSONMax(path, v, size-1)
	if err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), "more than the limit") || strings.Contains(err.Error(), "\n") {
		t.Errorf("over the bound: %v; want one line naming %s", err, path)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused run file was written (%v)", err)
	}
	if err := writeJSONMax(path, v, size); err != nil || !bytes.Equal(read(t, path), read(t, want)) {
		t.Errorf("at the bound: %v, or bytes differ from WriteJSON's", err)
	}
}
