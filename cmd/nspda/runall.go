package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/nspda/nspda/experiment"
)

// runReport is told about each run of runAll when it ends.
type runReport struct {
	Done, Total int // runs ended so far (this one included), and in all
	Config      experiment.Config
	Summary     *experiment.Summary // nil on error
	Outcome     experiment.Outcome
	Seconds     float64 // wall time of this call, 0 for a skipped run
	Err         error
}

// runAll runs every configuration into the store, at most workers at a time
// (at least 1), and calls report (serialized, in completion order) after
// each. The first error cancels the runs in progress, which keep their
// checkpoints and resume when runAll is called again; it is returned.
func runAll(ctx context.Context, s experiment.Store, cfgs []experiment.Config, workers int, report func(runReport)) error {
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
			r := runReport{Total: len(cfgs), Config: cfg, Summary: sum, Outcome: outcome, Err: err}
			if outcome != experiment.Skipped {
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
