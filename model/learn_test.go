package model_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/train"
)

// TestEveryModelLearns trains every registered model briefly on anbn, with
// the shared protocol (per-step loss; BPTT for every model, so that it stays
// fast: the estimators are tested against each other elsewhere), and checks
// that the loss falls: the last epoch's mean loss is at least 0.5% below the
// first's (chance level is about 8.7 here; every model ends 1–40% lower).
func TestEveryModelLearns(t *testing.T) {
	for _, name := range model.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := experiment.Defaults()
			cfg.Positives, cfg.Negatives = 60, 60
			cfg.Curriculum = "standard"
			cfg = cfg.WithModel(name)
			cfg.Algo = "bptt"
			cfg.Hidden = 8
			for k, v := range map[string]any{"hints": 0, "stacks": 2} {
				if nn.HasOption(model.Options(name), k) {
					if err := cfg.Set(k, v); err != nil {
						t.Fatal(err)
					}
				}
			}
			cfg.MaxEpochs = 30
			cfg.LR = 0.03
			cfg.Tests = nil
			dir := t.TempDir()
			if _, err := experiment.Train(context.Background(), cfg, dir, false, nil); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(filepath.Join(dir, experiment.MetricsFile))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var losses []float64
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				var m train.Metrics
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					t.Fatal(err)
				}
				losses = append(losses, m.Loss)
			}
			if len(losses) < 2 {
				t.Fatalf("%d epochs recorded", len(losses))
			}
			first, last := losses[0], losses[len(losses)-1]
			t.Logf("%s losses %.4f", name, losses)
			if !(last < 0.995*first) {
				t.Errorf("loss did not fall: %.4f in epoch 1, %.4f in epoch %d (%v)", first, last, len(losses), losses)
			}
		})
	}
}
