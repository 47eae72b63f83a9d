package train

import (
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
	eachOrderSeed(t, 8, func(t *testing.T, order nspda.Order, seed uint64) {
		net, ex := randomCase(t, order, seed)
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
		checkAgree(t, "", gr, gb)
		if norm(gb) == 0 {
			t.Fatal("zero gradient with the switch: the test checks nothing")
		}
	})
}
