package extract

import (
	"runtime"
	"testing"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/program"
)

// pushAll is the one-symbol PDA that pushes every symbol: the stack of the
// string aⁿ holds n symbols, the worst case for a walk that keeps a stack
// per depth.
const pushAll = "alphabet: [a]\nstart: q0\naccept: [q1]\ntransitions:\n  - [q0, a, any, q1, push]\n  - [q1, a, any, q1, push]\n"

// pushAllModel returns pushAll's PDA and its programmed network.
func pushAllModel(t testing.TB) (*grammar.PDA, *nspda.Model) {
	t.Helper()
	p, err := grammar.Parse("push.yaml", []byte(pushAll))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := program.Compile(p, program.Options{Order: nspda.Second})
	if err != nil {
		t.Fatal(err)
	}
	return p, prog.Model()
}

// TestExhaustiveMemoryLinear: comparing on every string up to n over one
// symbol allocates O(n), not a stack per depth (O(n²): 2 GB at n = 16384,
// out of memory at 32768, when the walk copied each depth's stacks).
func TestExhaustiveMemoryLinear(t *testing.T) {
	p, m := pushAllModel(t)
	const n = 4000
	budget := uint64(1<<20 + 512*n) // the Agreements alone are 56 bytes a length
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := Exhaustive(m, 1, p, p, n)
	runtime.ReadMemStats(&after)
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d bytes", got)
	if got > budget {
		t.Errorf("Exhaustive to length %d allocated %d bytes, budget %d", n, got, budget)
	}
	for _, a := range c.Agreements {
		if a.Strings != 1 || a.NetworkDisagree != 0 || a.TargetDisagree != 0 {
			t.Fatalf("%+v", a)
		}
	}
	if len(c.Agreements) != n+1 {
		t.Fatalf("%d agreements, want %d", len(c.Agreements), n+1)
	}
}
