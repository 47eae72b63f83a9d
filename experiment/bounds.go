package experiment

import (
	"fmt"
	"math"

	"github.com/nspda/nspda/internal/limits"
)

// checkBounds refuses a non-finite or out-of-range number and any size or
// count beyond the bounds of package limits: the part of Validate that keeps
// a configuration's work and its JSON encoding bounded and well defined.
func (c Config) checkBounds() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"lr", c.LR}, {"clip", c.Clip}, {"noise", c.Noise}, {"noise-scale", c.NoiseScale}, {"stage-noise", c.StageNoise}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%s must be a finite number, not %g", f.name, f.v)
		}
	}
	if c.NoiseScale < 0 || c.NoiseScale > maxNoiseScale {
		return fmt.Errorf("noise-scale must be from 0 to %g, not %g", float64(maxNoiseScale), c.NoiseScale)
	}
	if err := limits.Sizes(c.Hidden, 0); err != nil {
		return err
	}
	if c.Positives < 0 || c.Negatives < 0 {
		return fmt.Errorf("positives and negatives must be positive (or 0 for the paper's)")
	}
	for _, n := range []struct {
		name     string
		v, bound int
	}{{"refine", c.Refine, limits.Refine}, {"eval_refine", c.EvalRefine, limits.Refine}, {"window", c.Window, limits.StringLen},
		{"max-epochs", c.MaxEpochs, limits.Epochs}, {"positives", c.Positives, limits.Strings}, {"negatives", c.Negatives, limits.Strings}} {
		if err := limits.Check(n.name, n.v, n.bound); err != nil {
			return err
		}
	}
	return nil
}

// maxNoiseScale bounds the noise regularizer's β (the NSPDA's hint
// strength is bounded by nspda.MaxHintStrength): far above any value that
// trains (0.2) and low enough that the weights it sets stay finite.
const maxNoiseScale = 10
