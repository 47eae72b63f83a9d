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
	"github.com/nspda/nspda/train"
)

// TestEveryModelLearns trains every registered model briefly on anbn, with
// the shared protocol (per-step loss, the model's default estimator), and
// checks that the loss falls: the last epoch's mean loss is below the
// first's.
func TestEveryModelLearns(t *testing.T) {
	for _, name := range model.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := experiment.Defaults()
			cfg.Positives, cfg.Negatives = 60, 60
			cfg.Curriculum = "standard"
			cfg.Model = name
			cfg.Algo = "bptt" // fast for every model; estimators are tested elsewhere
			cfg.Hints = 0
			cfg.Hidden = 8
			cfg.Stacks = 2
			cfg.MaxEpochs = 8
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
			if !(last < first) {
				t.Errorf("loss did not fall: %.4f in epoch 1, %.4f in epoch %d (%v)", first, last, len(losses), losses)
			}
		})
	}
}
