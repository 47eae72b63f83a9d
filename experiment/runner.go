package experiment

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// RunReport is told about each run of RunAll when it ends.
type RunReport struct {
	Done, Total int // runs ended so far (this one included), and in all
	Config      Config
	Summary     *Summary // nil on error
	Outcome     Outcome
	Seconds     float64 // wall time of this call, 0 for a skipped run
	Err         error
}

// RunAll runs every configuration into the store, at most workers at a time
// (at least 1), and calls report (serialized, in completion order) after
// each. The first error cancels the runs in progress, which keep their
// checkpoints and resume when RunAll is called again; it is returned.
func RunAll(ctx context.Context, s Store, cfgs []Config, workers int, report func(RunReport)) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, workers))
	var (
		mu   sync.Mutex
		done int
	)
	for _, cfg := range cfgs {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			start := time.Now()
			sum, outcome, err := s.Run(gctx, cfg, nil)
			if err != nil {
				err = fmt.Errorf("run %s (%s on %s, seed %d): %w", cfg.Key(), cfg.Model, cfg.Grammar, cfg.Seed, err)
			}
			r := RunReport{Total: len(cfgs), Config: cfg, Summary: sum, Outcome: outcome, Err: err}
			if outcome != Skipped {
				r.Seconds = time.Since(start).Seconds()
			}
			mu.Lock()
			done++
			r.Done = done
			if report != nil {
				report(r)
			}
			mu.Unlock()
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}
