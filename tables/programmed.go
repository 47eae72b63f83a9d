package tables

import (
	"sync"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/program"
)

// ProgrammedSource is the Source of the programmed table: the summary of a
// configuration is the NSPDA that program.Compile makes of its grammar's PDA
// at its order (default strength H), classifying with Refine iterations per
// symbol, evaluated on its Tests generated with its TestSeed. Nothing is
// trained or stored; results are kept in memory. It is safe for concurrent
// use.
type ProgrammedSource struct {
	mu    sync.Mutex
	cache map[string]*experiment.Summary
}

// Summary evaluates cfg's programmed network.
func (p *ProgrammedSource) Summary(cfg experiment.Config) (*experiment.Summary, error) {
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
	prog, err := program.Compile(lang.PDA, program.Options{Order: nspda.Order(cfg.Order)})
	if err != nil {
		return nil, nil, err
	}
	return nspda.NewNet(prog.Model()), lang, nil
}
