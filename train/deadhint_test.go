package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nnpda"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/program"
)

// TestDeadHint: under the dead-state hint the loss has the dead neuron's term,
// and BPTT, truncated BPTT (long window) and RTRL all give its exact gradient
// (checked against central finite differences of the loss), with UORO
// unbiased around it on average.
func TestDeadHint(t *testing.T) {
	lang, _ := grammar.Builtin("anbn")
	syms, _ := lang.PDA.Encode("aabab")
	ex := Example{Syms: syms, Label: 0, DeadAt: program.DiesAt(lang.PDA, syms)}
	if ex.DeadAt != 4 {
		t.Fatalf("aabab dies at %d, want 4", ex.DeadAt)
	}
	m, err := nnpda.New([]rune("ab"), nnpda.Config{Order: 3, Hidden: 3, Epsilon: nnpda.DefaultEpsilon}, rand.New(rand.NewPCG(4, 4)))
	if err != nil {
		t.Fatal(err)
	}
	m.Reserve(8)
	var net nn.Net = m
	gb, loss := gradOf(&BPTT{}, net, ex, 2, 1)
	// The loss, recomputed by hand: the per-step terms of the first four
	// symbols (no end marker) and ½(1 − z_dead)² after the last of them.
	S := net.StateSize()
	st, st2 := make([]float64, S), make([]float64, S)
	rec := net.NewRecord()
	net.Start(st, rand.New(rand.NewPCG(1, 5)))
	want := 0.0
	for _, l := range syms[:4] {
		for it := 0; it < 2; it++ {
			want += nn.BCE(net.Step(rec, st, st2, l, it == 0, it == 1), 0)
			st, st2 = st2, st
		}
	}
	e := 1 - st[m.DeadNeuron()]
	want += 0.5 * e * e
	if math.Abs(loss-want) > 1e-12 {
		t.Fatalf("loss %v, recomputed %v", loss, want)
	}
	gr, _ := gradOf(&RTRL{}, net, ex, 2, 1)
	gt, _ := gradOf(&TBPTT{Window: 50}, net, ex, 2, 1)
	for _, g := range [][]float64{gr, gt} {
		if d, at := relDiff(g, gb); d > 1e-8 {
			t.Fatalf("parameter %d differs from BPTT by %g", at, d)
		}
	}
	p := net.Params()
	orig := append([]float64(nil), p...)
	fdg := fd.Gradient(nil, func(x []float64) float64 {
		copy(p, x)
		_, l := gradOf(&BPTT{}, net, ex, 2, 1)
		return l
	}, orig, &fd.Settings{Formula: fd.Central, Step: 1e-6})
	copy(p, orig)
	for i := range gb {
		if math.Abs(gb[i]-fdg[i]) > 1e-5*math.Max(1, math.Abs(fdg[i])) {
			t.Fatalf("parameter %d: BPTT %.9g, finite differences %.9g", i, gb[i], fdg[i])
		}
	}
	u := &UORO{Rng: rand.New(rand.NewPCG(8, 8))}
	mean := make([]float64, len(gb))
	const N = 4000
	for n := 0; n < N; n++ {
		g, _ := gradOf(u, net, ex, 2, 1)
		for i, v := range g {
			mean[i] += v / N
		}
	}
	// A coarse check that the hint does not bias UORO; TestUOROUnbiased is the
	// statistical test.
	if d, at := relDiff(mean, gb); d > 0.1 {
		t.Errorf("UORO's mean differs from the exact gradient by %.3g (relative to its largest component) at parameter %d", d, at)
	}
}
