package nspda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/stack"
)

// tableReads are the read values the tests run with: the evaluation
// midpoints and another set (a Runner's Reads may be changed).
var tableReads = []stack.Reads{stack.EvalReads, {Top: 0.95, Popped: 0.07, Other: 0.003}}

// sameBits reports whether a and b hold the same float64s bit for bit.
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// stepClassify is Classify as it was before the read tables: Step over the
// string and the end marker.
func stepClassify(r *Runner, syms []int) (bool, float64) {
	r.Reset()
	for _, l := range syms {
		r.Step(l)
	}
	r.Step(r.m.L)
	return r.y > 0.5, r.y
}

// TestReadTablesMatchStep runs the read-table step and Step side by side on
// random models (both orders, several sizes, refine 1 and 4, both read
// sets) and requires, after every symbol, the same state and action
// pre-activations bit for bit, the same state neurons on and the same stack;
// and from Classify the same answer and output bits as Step. Every compiled
// variant of the kernels runs (AVX-512 and AVX2 under GOEXPERIMENT=simd).
func TestReadTablesMatchStep(t *testing.T) {
	var ops [3]int // pushes, pops, no-ops seen
	for _, v := range kernelVariants() {
		for order, seed := range orderSeeds(1, 3) {
			for _, sz := range []struct{ L, J, A int }{{1, 1, 1}, {2, 5, 2}, {4, 13, 4}, {4, 32, 4}, {3, 37, 5}} {
				for _, refine := range []int{1, 4} {
					for ri, reads := range tableReads {
						name := fmt.Sprintf("%s/order%d/seed%d/L%dJ%dA%d/refine%d/reads%d", v.name, order, seed, sz.L, sz.J, sz.A, refine, ri)
						v.set()
						m := busyModel(t, order, sz.L, sz.J, sz.A, seed)
						checkTables(t, name, m, refine, reads, seed, &ops)
					}
				}
			}
		}
	}
	if ops[0] < 1000 || ops[1] < 1000 || ops[2] < 1000 {
		t.Errorf("the runs saw %d pushes, %d pops and %d no-ops; want at least 1000 of each", ops[0], ops[1], ops[2])
	}
}

func checkTables(t *testing.T, name string, m *Model, refine int, reads stack.Reads, seed uint64, ops *[3]int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	a, b := m.NewRunner(), m.NewRunner()
	for _, r := range []*Runner{a, b} {
		r.Refine, r.Reads = refine, reads
	}
	b.tables = newReadTables(m, reads)
	for n := range 40 {
		syms := append(randomSyms(rng, m.L, n), m.L)
		a.Reset()
		b.Reset()
		rd := b.tables.readIndex(-1, -1)
		for p, l := range syms {
			opA := a.Step(l)
			rd = b.stepTable(l, rd)
			ops[opIndex(opA)]++
			switch {
			case opA != b.op:
				t.Fatalf("%s: string %v, symbol %d: op %v, Step %v", name, syms, p, b.op, opA)
			case !sameBits(a.pre, b.pre) || !sameBits(a.act, b.act):
				t.Fatalf("%s: string %v, symbol %d: pre-activations\n%v %v\nStep\n%v %v", name, syms, p, b.pre, b.act, a.pre, a.act)
			case !slices.Equal(a.active, b.active) || !sameBits(a.z, b.z):
				t.Fatalf("%s: string %v, symbol %d: on %v, Step %v", name, syms, p, b.active, a.active)
			case !slices.Equal(a.Stack.Symbols(), b.Stack.Symbols()) || a.Stack.Popped() != b.Stack.Popped():
				t.Fatalf("%s: string %v, symbol %d: stack %v, Step %v", name, syms, p, b.Stack.Symbols(), a.Stack.Symbols())
			case rd != b.tables.readIndex(a.Stack.Top(), a.Stack.Popped()):
				t.Fatalf("%s: string %v, symbol %d: read %d after the step", name, syms, p, rd)
			}
		}
		syms = syms[:n]
		okA, yA := stepClassify(a, syms)
		okB, yB := b.Classify(syms)
		if okA != okB || math.Float64bits(yA) != math.Float64bits(yB) {
			t.Fatalf("%s: Classify(%v) = %v %v, Step %v %v", name, syms, okB, yB, okA, yA)
		}
	}
}

func opIndex(op grammar.Op) int {
	switch op {
	case grammar.Push:
		return 0
	case grammar.Pop:
		return 1
	}
	return 2
}

// TestReadTablesBudget checks the fallback to Step beyond the tables'
// budget: with room for only a few blocks, Classify still answers as Step,
// and it did fall back.
func TestReadTablesBudget(t *testing.T) {
	for order, seed := range orderSeeds(4, 5) {
		m := randomModel(t, order, 3, 9, 3, seed)
		a, b := m.NewRunner(), m.NewRunner()
		b.tables = newReadTables(m, b.Reads)
		b.tables.left = 3 * m.J * (m.J + m.A)
		rng := rand.New(rand.NewPCG(seed, 8))
		for n := range 60 {
			syms := randomSyms(rng, m.L, n)
			okA, yA := stepClassify(a, syms)
			okB, yB := b.Classify(syms)
			if okA != okB || yA != yB {
				t.Fatalf("order %d seed %d: Classify(%v) = %v %v, Step %v %v", order, seed, syms, okB, yB, okA, yA)
			}
		}
		met := 0
		for _, blk := range b.tables.blocks {
			if blk != nil {
				met++
			}
		}
		if met != 3 || b.tables.left != 0 {
			t.Errorf("order %d seed %d: %d blocks held, %d floats left; want 3 and 0", order, seed, met, b.tables.left)
		}
	}
}

// TestClassifyForget checks that the read tables follow the weights after
// Forget and the read values after a change of Reads, and not before.
func TestClassifyForget(t *testing.T) {
	m := randomModel(t, Third, 2, 6, 2, 9)
	ref, run := m.NewRunner(), m.NewRunner()
	rng := rand.New(rand.NewPCG(9, 9))
	strs := make([][]int, 200)
	for i := range strs {
		strs[i] = randomSyms(rng, m.L, 1+rng.IntN(30))
	}
	agree := func() bool {
		for _, s := range strs {
			_, yA := stepClassify(ref, s)
			if _, yB := run.Classify(s); yA != yB {
				return false
			}
		}
		return true
	}
	if !agree() {
		t.Fatal("Classify differs from Step")
	}
	for i := range m.Params {
		m.Params[i] = -m.Params[i]
	}
	if agree() {
		t.Fatal("Classify followed new weights without Forget: the test cannot see stale tables")
	}
	run.Forget()
	if !agree() {
		t.Fatal("Classify differs from Step after Forget")
	}
	for _, r := range []*Runner{ref, run} {
		r.Reads = tableReads[1]
	}
	if !agree() {
		t.Fatal("Classify differs from Step after a change of Reads")
	}
}

// TestClassifyAllocs checks that Classify allocates nothing once its
// tables hold the reads a string meets and its stack has grown.
func TestClassifyAllocs(t *testing.T) {
	m := randomModel(t, Third, 4, 32, 4, 3)
	run := m.NewRunner()
	syms := randomSyms(rand.New(rand.NewPCG(3, 3)), m.L, 500)
	run.Classify(syms)
	if n := testing.AllocsPerRun(20, func() { run.Classify(syms) }); n != 0 {
		t.Errorf("Classify allocates %v times per string", n)
	}
}

// BenchmarkClassify compares Step (the Runner's one-string contraction)
// with Classify on the read tables: third order, L = 4, strings of 500
// random symbols; chars/s counts input symbols.
func BenchmarkClassify(b *testing.B) {
	for _, J := range []int{8, 32} {
		m := randomModel(b, Third, 4, J, 4, 1)
		syms := randomSyms(rand.New(rand.NewPCG(1, 1)), m.L, 500)
		for _, path := range []string{"step", "tables"} {
			b.Run(fmt.Sprintf("%s/J%d", path, J), func(b *testing.B) {
				run := m.NewRunner()
				classify := run.Classify
				if path == "step" {
					classify = func(s []int) (bool, float64) { return stepClassify(run, s) }
				}
				for b.Loop() {
					classify(syms)
				}
				b.ReportMetric(float64(b.N*len(syms))/b.Elapsed().Seconds(), "chars/s")
			})
		}
	}
}

// BenchmarkDenseLockStep measures what a lock-step batch pays per string
// and symbol for the contractions alone (eqs. (1) and (2), K = 1, R = 5,
// A = 4): kForm and kApply over every state neuron (a batch cannot skip the
// off ones lane by lane) for one group of B strings that share the input,
// all lanes used; no stack, read or threshold. Compare lane-steps/s with
// BenchmarkClassify's tables chars/s, which include all of those: the read
// tables are the faster way to classify (docs/performance.md).
func BenchmarkDenseLockStep(b *testing.B) {
	for _, J := range []int{8, 32} {
		for _, B := range []int{8, 32} {
			b.Run(fmt.Sprintf("J%d/B%d", J, B), func(b *testing.B) {
				const R, A = 5, 4
				rng := rand.New(rand.NewPCG(1, 1))
				nc := B / lanes
				W, Wa := randv(rng, J*J*R, false), randv(rng, J*A*R, false)
				v, z := randv(rng, nc*R*lanes, false), randv(rng, nc*J*lanes, true)
				bs, ba := randv(rng, J, false), randv(rng, A, false)
				Cm, Ca := make([]float64, nc*J*J*lanes), make([]float64, nc*J*A*lanes)
				pre, act := make([]float64, J*B), make([]float64, A*B)
				for b.Loop() {
					kForm(Cm, W, 0, R, J*J, v, nc)
					kApply(pre, bs, Cm, z, J, J, nc)
					kForm(Ca, Wa, 0, R, J*A, v, nc)
					kApply(act, ba, Ca, z, J, A, nc)
				}
				b.ReportMetric(float64(b.N*B)/b.Elapsed().Seconds(), "lane-steps/s")
			})
		}
	}
}
