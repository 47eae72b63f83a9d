package experiment

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/grammar"
)

// learning is small() with every learning option on: Adam's moments, the
// heads, the selection state and restarts must all survive a checkpoint.
func learning() Config {
	c := small()
	if err := c.Set("hints", 0); err != nil {
		panic(err)
	}
	c.Loss, c.NextWeight, c.LMWeight, c.ActionWeight = "viable", 1, 0.5, 1
	c.Optimizer, c.LR, c.Batch, c.ClipNorm, c.InitScale = "adam", 0.01, 8, 5, 0.5
	c.Patience, c.Plateau, c.Restarts, c.MaxEpochs, c.RestartSchedule, c.FirstPatience = 2, 1, 2, 8, "luby", 3
	return c
}

// TestResumeLearningOptions: a run with every learning option, killed after
// three epochs and resumed, ends with the uninterrupted run's metrics and
// model byte for byte.
func TestResumeLearningOptions(t *testing.T) {
	cfg := learning()
	whole, broken := t.TempDir(), t.TempDir()
	if _, err := Train(context.Background(), cfg, whole, false, nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := Train(ctx, cfg, broken, false, cancelAfter(3, cancel)); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run returned %v", err)
	}
	if _, err := Train(context.Background(), Config{}, broken, true, nil); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{MetricsFile, ModelFile} {
		if !bytes.Equal(read(t, filepath.Join(whole, f)), read(t, filepath.Join(broken, f))) {
			t.Errorf("resumed run's %s differs from the uninterrupted run's", f)
		}
	}
	if !bytes.Contains(read(t, filepath.Join(whole, MetricsFile)), []byte(`"select_acc"`)) {
		t.Error("metrics carry no select_acc: selection did not run")
	}
}

// TestDefaultRecipeLearns: the default recipe learns aⁿbⁿ (seed 1) exactly,
// to length 960. A regression guard of docs/training.md's measurement, a
// few seconds on one core.
func TestDefaultRecipeLearns(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a full run")
	}
	cfg, err := Recipe("default")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Train(context.Background(), cfg, t.TempDir(), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Sets {
		if r.Errors != 0 {
			t.Errorf("%s: %d errors", r.Name, r.Errors)
		}
	}
	if !sum.Converged || len(sum.Sets) != 3 {
		t.Errorf("converged %v, %d test sets", sum.Converged, len(sum.Sets))
	}
}

// TestRecipes: the paper recipe is Defaults(), and an unknown name is
// refused with the list.
func TestRecipes(t *testing.T) {
	p, err := Recipe("paper")
	if err != nil || p.Key() != Defaults().Key() {
		t.Fatalf("paper recipe %+v, %v", p, err)
	}
	if _, err := Recipe("fast"); err == nil {
		t.Fatal("unknown recipe accepted")
	}
	d, _ := Recipe("default")
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestDataTrainsLikeGrammar: the splits `nspda generate` writes, given to
// --data, train exactly as --grammar does with the data recipe (the same
// metrics and model, byte for byte).
func TestDataTrainsLikeGrammar(t *testing.T) {
	cfg, _ := Recipe("data")
	cfg.Hidden, cfg.MaxEpochs, cfg.Patience, cfg.Restarts = 6, 3, 2, 1
	cfg.Positives, cfg.Negatives, cfg.Tests = 80, 80, nil
	lang, _ := grammar.Builtin(cfg.Grammar)
	files := t.TempDir()
	write := func(name string, ex []dataset.Example) string {
		path := filepath.Join(files, name+".jsonl")
		if err := dataset.WriteFile(path, ex); err != nil {
			t.Fatal(err)
		}
		return path
	}
	trainSet, validSet, selSet, err := splits(cfg, lang)
	if err != nil {
		t.Fatal(err)
	}
	fromData := cfg
	fromData.Grammar, fromData.Positives, fromData.Negatives = "", 0, 0
	fromData.Data, fromData.ValidData, fromData.SelectData = write("train", trainSet), write("valid", validSet), write("select", selSet)
	a, b := t.TempDir(), t.TempDir()
	if _, err := Train(context.Background(), cfg, a, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Train(context.Background(), fromData, b, false, nil); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{MetricsFile, ModelFile} {
		if !bytes.Equal(read(t, filepath.Join(a, f)), read(t, filepath.Join(b, f))) {
			t.Errorf("%s differs between --grammar and --data", f)
		}
	}
}
