package nntest

import (
	"math/rand/v2"
	"testing"

	"github.com/nspda/nspda/nn"
)

// Pass is an allocation-free forward and backward pass over one string with
// one iteration per symbol, using preallocated records and states: what
// benchmarks and allocation tests of a Net measure.
type Pass struct {
	Net           nn.Net
	JVP           bool // also run StepJVP at every iteration (for allocation tests)
	recs          []any
	states        [][]float64
	outs          []float64
	ds, ds2, grad []float64
	jv            []float64
}

// NewPass prepares a Pass for strings of at most maxLen symbols.
func NewPass(net nn.Net, maxLen int) *Pass {
	p := &Pass{Net: net, JVP: true}
	n := net.StateSize()
	for range maxLen + 1 {
		p.recs = append(p.recs, net.NewRecord())
	}
	for range maxLen + 2 {
		p.states = append(p.states, make([]float64, n))
	}
	p.outs = make([]float64, maxLen+1)
	p.ds, p.ds2, p.jv, p.grad = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, len(net.Params()))
	return p
}

// Run reads syms and the end marker in evaluation mode, back-propagates the
// summed per-step loss into the Pass's gradient buffer, and returns the loss.
func (p *Pass) Run(syms []int, label float64) float64 {
	net := p.Net
	net.Start(p.states[0], nil)
	end := net.InputSize() - 1
	loss := 0.0
	for t := 0; t <= len(syms); t++ {
		l := end
		if t < len(syms) {
			l = syms[t]
		}
		p.outs[t] = net.Step(p.recs[t], p.states[t], p.states[t+1], l, true, true)
		loss += nn.BCE(p.outs[t], label)
	}
	clear(p.ds2)
	for t := len(syms); t >= 0; t-- {
		net.OutVJP(p.recs[t], nn.Sigmoid(p.outs[t])-label, p.ds2, p.grad)
		clear(p.ds)
		net.StepVJP(p.recs[t], p.ds2, p.ds, p.grad)
		if p.JVP {
			net.StepJVP(p.recs[t], p.ds2, p.jv)
		}
		p.ds, p.ds2 = p.ds2, p.ds
	}
	return loss
}

// BenchmarkPass times Pass.Run without the JVP over a fixed random string of
// n symbols over {0, 1} (plus the end marker) and reports chars/s counting
// the n+1 inputs: the baselines' and the NSPDA's common step benchmark. Size
// a memory before calling it.
func BenchmarkPass(b *testing.B, net nn.Net, n int) {
	rng := rand.New(rand.NewPCG(2, 2))
	syms := make([]int, n)
	for i := range syms {
		syms[i] = rng.IntN(2)
	}
	bp := NewPass(net, len(syms))
	bp.JVP = false
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		bp.Run(syms, 1)
	}
	b.ReportMetric(float64(b.N*(len(syms)+1))/b.Elapsed().Seconds(), "chars/s")
}
