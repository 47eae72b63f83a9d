package tables

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/program"
)

// programmedSource is the source of the programmed table: the summary of a
// configuration is the NSPDA that program.Compile makes of its grammar's PDA
// at its order (default strength H), classifying with Refine iterations per
// symbol, evaluated on its Tests generated with its TestSeed. Nothing is
// trained or stored; results are kept in memory. It is safe for concurrent
// use.
type programmedSource struct {
	mu    sync.Mutex
	cache map[string]*experiment.Summary
}

// Summary evaluates cfg's programmed network.
func (p *programmedSource) Summary(cfg experiment.Config) (*experiment.Summary, error) {
	key := cfg.Key()
	p.mu.Lock()
	sum := p.cache[key]
	p.mu.Unlock()
	if sum != nil {
		return sum, nil
	}
	net, lang, err := programmedNet(cfg)
	if err != nil {
		return nil, err
	}
	sum = &experiment.Summary{Key: key, Config: cfg, Converged: true, Params: len(net.Params()), Algorithm: "program"}
	for _, name := range cfg.Tests {
		ex, err := dataset.GenerateSplit(lang, name, cfg.TestSeed)
		if err != nil {
			return nil, err
		}
		r, err := evaluate.Run(name, model.Classifier(net, cfg.Refine), lang.PDA, ex)
		if err != nil {
			return nil, err
		}
		sum.Sets = append(sum.Sets, r)
	}
	p.mu.Lock()
	if p.cache == nil {
		p.cache = make(map[string]*experiment.Summary)
	}
	p.cache[key] = sum
	p.mu.Unlock()
	return sum, nil
}

// programmedNet compiles cfg's grammar at cfg's order.
func programmedNet(cfg experiment.Config) (nn.Model, *grammar.Language, error) {
	lang, err := grammar.Load(cfg.Grammar)
	if err != nil {
		return nil, nil, err
	}
	prog, err := program.Compile(lang.PDA, program.Options{Order: nspda.Order(cfg.TensorOrder())})
	if err != nil {
		return nil, nil, err
	}
	return nspda.NewNet(prog.Model()), lang, nil
}

// newProgrammedSource returns a programmedSource with every cell of t
// evaluated, workers at a time.
func newProgrammedSource(ctx context.Context, t *Table, workers int) (reportSource, error) {
	ps := &programmedSource{}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, workers))
	for _, row := range t.Cells {
		for _, cell := range row {
			for _, cfg := range cell.Configs {
				g.Go(func() error {
					if err := ctx.Err(); err != nil {
						return err
					}
					_, err := ps.Summary(cfg)
					return err
				})
			}
		}
	}
	return ps, g.Wait()
}

// lengths evaluates cfg's programmed network on the bins.
func (p *programmedSource) lengths(sets *lengthSets, cfg experiment.Config, bins []LengthBin) (*LengthErrors, error) {
	net, lang, err := programmedNet(cfg)
	if err != nil {
		return nil, err
	}
	return sets.evaluate(net, cfg.Refine, lang, bins, cfg.TestSeed)
}
