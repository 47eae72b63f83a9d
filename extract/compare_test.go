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
// out of memory at 32768, when the walk copied each depth's stacks), and
// not a string per counterexample where the target differs on every
// length (O(n²) too, and 27 s at n = 65536).
func TestExhaustiveMemoryLinear(t *testing.T) {
	p, m := pushAllModel(t)
	none, err := grammar.Parse("none.yaml", []byte("alphabet: [a]\nstart: q0\naccept: [q0]\ntransitions:\n  - [q0, a, any, q1, push]\n"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 4000
	budget := uint64(1<<20 + 512*n) // the Agreements alone are 56 bytes a length
	for _, target := range []*grammar.PDA{p, none} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		c := Exhaustive(m, 1, p, target, n)
		runtime.ReadMemStats(&after)
		got := after.TotalAlloc - before.TotalAlloc
		t.Logf("target %s: %d bytes", target.Name, got)
		if got > budget {
			t.Errorf("Exhaustive to length %d, target %s, allocated %d bytes, budget %d", n, target.Name, got, budget)
		}
		if len(c.Agreements) != n+1 {
			t.Fatalf("%d agreements, want %d", len(c.Agreements), n+1)
		}
		for _, a := range c.Agreements {
			if a.Strings != 1 || a.NetworkDisagree != 0 || a.TargetDisagree != btoi(target == none) {
				t.Fatalf("target %s: %+v", target.Name, a)
			}
		}
		if target == none && (len(c.TargetCounter) != Keep || c.TargetCounter[Keep-1].String != "aaaa") {
			t.Errorf("counterexamples %v, want the %d shortest", c.TargetCounter, Keep)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
