package train

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nspda/nspda/model/nspda"
)

// TestNoReadGrad: the NSPDA's NoReadGrad switch (∂p/∂v* = 0) leaves the
// forward pass alone (the loss is bit-identical) and cuts the only path
// from the loss to the action weights (the gradient of Wa and ba, non-zero
// without the switch, is zero with it); with it, BPTT and RTRL still agree
// to 1e-8, both orders, with refinement and hints.
func TestNoReadGrad(t *testing.T) {
	for _, order := range []nspda.Order{nspda.Second, nspda.Third} {
		for seed := uint64(1); seed <= 8; seed++ {
			t.Run(fmt.Sprintf("order%d/seed%d", order, seed), func(t *testing.T) {
				net := testNet(t, order, 3, 4, seed)
				rng := rand.New(rand.NewPCG(seed, 4))
				ex := randomExample(rng, 3, 5+rng.IntN(12), seed%2 == 0)
				wa := len(net.Ws) + len(net.Bs) // Wa, then ba, in the flat vector
				actions := func(g []float64) []float64 { return g[wa : wa+len(net.Wa)+len(net.Ba)] }

				g, loss := gradOf(&BPTT{}, net, ex, 3, seed)
				net.NoReadGrad = true
				gb, lb := gradOf(&BPTT{}, net, ex, 3, seed)
				gr, lr := gradOf(&RTRL{}, net, ex, 3, seed)
				net.NoReadGrad = false

				if lb != loss || lr != loss {
					t.Fatalf("the switch changed the loss: %v without, BPTT %v and RTRL %v with", loss, lb, lr)
				}
				if norm(actions(g)) == 0 {
					t.Fatal("zero action gradient without the switch: the test checks nothing")
				}
				if slices.Equal(actions(gb), actions(g)) {
					t.Fatal("the switch left the gradient of Wa unchanged")
				}
				if n := norm(actions(gb)); n != 0 {
					t.Errorf("with the switch the action weights' gradient has norm %g, want 0", n)
				}
				if d, at := relDiff(gr, gb); d > 1e-8 {
					t.Fatalf("parameter %d: RTRL %.12g, BPTT %.12g (relative %.3g)", at, gr[at], gb[at], d)
				}
				if norm(gb) == 0 {
					t.Fatal("zero gradient with the switch: the test checks nothing")
				}
			})
		}
	}
}
