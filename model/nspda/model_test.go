package nspda

import (
	"bytes"
	"iter"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/internal/testutil"
	"github.com/nspda/nspda/nn"
	"github.com/nspda/nspda/nn/nntest"
)

func randomModel(t testing.TB, order Order, L, J, A int, seed uint64) *Model {
	t.Helper()
	alpha := []rune("abcdefgh")[:L]
	m, err := New(Shape{Order: order, L: L, J: J, A: A}, alpha)
	if err != nil {
		t.Fatal(err)
	}
	nntest.FillNormal(m.Params, seed, 0)
	return m
}

// orderSeeds yields both orders, each with every seed from first to last.
func orderSeeds(first, last uint64) iter.Seq2[Order, uint64] {
	return func(yield func(Order, uint64) bool) {
		for _, order := range []Order{Second, Third} {
			for seed := first; seed <= last; seed++ {
				if !yield(order, seed) {
					return
				}
			}
		}
	}
}

func TestShapeSizes(t *testing.T) {
	for _, tc := range []struct {
		s    Shape
		want int
	}{
		{Shape{Third, 2, 4, 2}, 4*4*3*3 + 4 + 2*4*3*3 + 2 + 4 + 1},
		{Shape{Second, 2, 4, 2}, 4*4*6 + 4 + 2*4*6 + 2 + 4 + 1},
	} {
		if got := tc.s.NumParams(); got != tc.want {
			t.Errorf("%+v: NumParams = %d, want %d", tc.s, got, tc.want)
		}
		m, err := New(tc.s, []rune("ab"))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(m.Ws) + len(m.Bs) + len(m.Wa) + len(m.Ba) + len(m.Wo) + len(m.Bo); n != len(m.Params) {
			t.Errorf("views cover %d of %d parameters", n, len(m.Params))
		}
	}
	for _, bad := range []Shape{{4, 2, 2, 2}, {Third, 0, 2, 2}, {Third, 2, 0, 2}, {Third, 2, 2, 0},
		{Third, 2, MaxUnits + 1, 2}, {Third, 2, 2, MaxUnits + 1}, {Third, MaxUnits + 1, 2, 2},
		{Third, 2, MaxUnits, 2}, {Second, MaxUnits, MaxUnits, MaxUnits}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("Validate(%+v) accepted", bad)
		}
		if bad.L <= 2 {
			if _, err := New(bad, []rune("ab")[:max(bad.L, 0)]); err == nil {
				t.Errorf("New(%+v) accepted", bad)
			}
		}
	}
}

// TestParamIndexing checks that Param addresses distinct parameters and that
// every weight the runner reads is reachable through it.
func TestParamIndexing(t *testing.T) {
	for _, order := range []Order{Second, Third} {
		m := randomModel(t, order, 2, 3, 2, 1)
		seen := map[*float64]bool{}
		kmax, lmax := m.ctxRow(), m.X()
		if order == Second {
			lmax = 1
		}
		for _, tc := range []struct {
			t   Tensor
			out int
		}{{TWs, m.J}, {TWa, m.A}} {
			for i := 0; i < tc.out; i++ {
				for j := 0; j < m.J; j++ {
					for k := 0; k < kmax; k++ {
						for l := 0; l < lmax; l++ {
							p := m.Param(tc.t, i, j, k, l)
							if seen[p] {
								t.Fatalf("order %d: %s(%d,%d,%d,%d) aliases another weight", order, tc.t, i, j, k, l)
							}
							seen[p] = true
						}
					}
				}
			}
		}
		if want := len(m.Ws) + len(m.Wa); len(seen) != want {
			t.Errorf("order %d: reached %d weights, want %d", order, len(seen), want)
		}
	}
}

// TestRunnerMatchesDense compares the runner's sparse step with a direct
// transcription of eq. (1)-(2) over all indices.
func TestRunnerMatchesDense(t *testing.T) {
	for order, seed := range orderSeeds(0, 19) {
		m := randomModel(t, order, 3, 5, 3, seed)
		run := m.NewRunner()
		rng := rand.New(rand.NewPCG(seed, 1))
		z := make([]float64, m.J)
		z[0] = 1
		r := make([]float64, m.R())
		run.Stack.Read(r, run.Reads)
		for step := 0; step < 30; step++ {
			l := rng.IntN(m.L + 1)
			zn, act := denseStep(m, z, r, l)
			op := run.Step(l)
			if want := DecodeAction(act); op != want {
				t.Fatalf("order %d seed %d step %d: op %v, dense %v", order, seed, step, op, want)
			}
			for i := range zn {
				if zn[i] != run.z[i] {
					t.Fatalf("order %d seed %d step %d: z = %v, dense %v", order, seed, step, run.z, zn)
				}
			}
			z = zn
			copy(r, run.r)
		}
	}
}

func denseStep(m *Model, z, r []float64, l int) (zn, act []float64) {
	x := make([]float64, m.X())
	x[l] = 1
	pre := func(t Tensor, out int, b []float64) []float64 {
		v := append([]float64(nil), b...)
		for i := 0; i < out; i++ {
			for j := 0; j < m.J; j++ {
				if m.Order == Third {
					for k := 0; k < m.R(); k++ {
						for ll := 0; ll < m.X(); ll++ {
							v[i] += *m.Param(t, i, j, k, ll) * z[j] * r[k] * x[ll]
						}
					}
					continue
				}
				vr := append(append([]float64(nil), r...), x...)
				for k := range vr {
					v[i] += *m.Param(t, i, j, k, 0) * z[j] * vr[k]
				}
			}
		}
		return v
	}
	act = pre(TWa, m.A, m.Ba)
	zn = pre(TWs, m.J, m.Bs)
	for i, v := range zn {
		zn[i] = 0
		if v > 0 {
			zn[i] = 1
		}
	}
	return zn, act
}

func TestDecodeAction(t *testing.T) {
	for _, tc := range []struct {
		pre  []float64
		want grammar.Op
	}{
		{[]float64{0, 0}, grammar.Noop},
		{[]float64{0.26, -0.18}, grammar.Noop},
		{[]float64{0.27, 0}, grammar.Push},
		{[]float64{0, -0.19}, grammar.Pop},
		{[]float64{0.5, -0.6}, grammar.Pop},
		{[]float64{0.7, -0.6}, grammar.Push},
		{[]float64{0.1, -0.6, 0.2}, grammar.Pop},
	} {
		if got := DecodeAction(tc.pre); got != tc.want {
			t.Errorf("DecodeAction(%v) = %v, want %v", tc.pre, got, tc.want)
		}
	}
	if math.Abs(nn.Sigmoid(PushThreshold)*2-1-0.13) > 1e-12 || math.Abs(nn.Sigmoid(PopThreshold)*2-1+0.09) > 1e-12 {
		t.Error("action thresholds do not match the paper's 0.13 and -0.09")
	}
}

func TestClassifyAllocatesNothing(t *testing.T) {
	for _, order := range []Order{Second, Third} {
		m := randomModel(t, order, 4, 6, 4, 3)
		run := m.NewRunner()
		syms := make([]int, 500)
		for i := range syms {
			syms[i] = i % 4
		}
		run.Classify(syms) // grow the stack once
		if n := testing.AllocsPerRun(20, func() { run.Classify(syms) }); n != 0 {
			t.Errorf("order %d: Classify allocates %v times per run", order, n)
		}
	}
}

func TestFileRoundTrip(t *testing.T) {
	for _, order := range []Order{Second, Third} {
		m := randomModel(t, order, 3, 4, 3, 7)
		m.Neurons = []string{"q0", "q1", "", "accept"}
		m.EvalRefine = 4
		var buf bytes.Buffer
		if err := m.Encode(&buf); err != nil {
			t.Fatal(err)
		}
		got, err := Decode(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		var again bytes.Buffer
		if err := got.Encode(&again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), again.Bytes()) {
			t.Errorf("order %d: encode(decode(f)) differs from f", order)
		}
		for i := range m.Params {
			if m.Params[i] != got.Params[i] {
				t.Fatalf("order %d: parameter %d: %v != %v", order, i, got.Params[i], m.Params[i])
			}
		}
	}
}

func TestDecodeRefusesBadFiles(t *testing.T) {
	m := randomModel(t, Third, 2, 3, 2, 9)
	var buf bytes.Buffer
	if err := m.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	for _, tc := range []struct {
		name, data, want string
	}{
		{"empty", "", "truncated"},
		{"truncated", good[:len(good)/2], "truncated"},
		{"not json", "hello", "not a valid model file"},
		{"other format", strings.Replace(good, `"nspda-model"`, `"other"`, 1), `format "other"`},
		{"newer", strings.Replace(good, `"version": 1`, `"version": 2`, 1), "version 2 is newer"},
		{"wrong size", strings.Replace(good, `"J": 3`, `"J": 4`, 1), "Ws has"},
		{"unknown field", strings.Replace(good, `"format"`, `"extra": 1, "format"`, 1), "unknown field"},
		{"bad order", strings.Replace(good, `"order": 3`, `"order": 5`, 1), "order must be 2 or 3"},
		{"huge J", strings.Replace(good, `"J": 3`, `"J": 10000000`, 1), "state neurons J = 10000000, more than the limit of 4096"},
		{"huge A", strings.Replace(good, `"A": 2`, `"A": 99999999999`, 1), "action neurons A = 99999999999, more than the limit"},
		{"negative J", strings.Replace(good, `"J": 3`, `"J": -3`, 1), "at least one state neuron, not -3"},
		{"too many parameters", strings.Replace(good, `"J": 3`, `"J": 4096`, 1), "parameters, more than the limit of 67108864"},
		{"J beyond int", strings.Replace(good, `"J": 3`, `"J": 1e30`, 1), "not a valid model file"},
		{"wrong Wa", strings.Replace(good, `"A": 2`, `"A": 1`, 1), "Wa has 54 values, want 27"},
		{"short Ws", strings.Replace(good, `"Ws": [`, `"Ws": [1,`, 1), "Ws has 82 values, want 81"},
		{"neuron names", strings.Replace(good, `"format"`, `"neurons": ["a"], "format"`, 1), "1 neuron names for J = 3"},
	} {
		_, err := Decode(strings.NewReader(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to mention %q", tc.name, err, tc.want)
		}
	}
	m.Params[0] = math.NaN()
	if err := m.Encode(&buf); err == nil {
		t.Error("a NaN parameter was written")
	}
}

// TestDecodeChecksBeforeAllocating: a file whose shape is within the limits
// but whose tensors do not match it is refused without allocating the
// shape's parameters (here 54 million of them, 430 MB).
func TestDecodeChecksBeforeAllocating(t *testing.T) {
	m := randomModel(t, Second, 2, 3, 2, 9)
	var buf bytes.Buffer
	if err := m.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	data := strings.Replace(buf.String(), `"J": 3`, `"J": 3000`, 1)
	if n := (Shape{Order: Second, L: 2, J: 3000, A: 2}).NumParams(); n < 50_000_000 {
		t.Fatalf("shape has only %d parameters; the test needs a large one", n)
	}
	var err error
	got := testutil.Allocated(func() { _, err = Decode(strings.NewReader(data)) })
	if err == nil || !strings.Contains(err.Error(), "Ws has 54 values") {
		t.Errorf("error %v, want it to name Ws", err)
	}
	if got > 1<<20 {
		t.Errorf("Decode allocated %d bytes before refusing the file", got)
	}
}

func TestWriteFileIsAtomic(t *testing.T) {
	dir := t.TempDir()
	m := randomModel(t, Third, 2, 3, 2, 11)
	path := filepath.Join(dir, "model.json")
	if err := m.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path); err != nil {
		t.Fatal(err)
	}
	m.Params[0] = math.Inf(1)
	if err := m.WriteFile(path); err == nil {
		t.Fatal("non-finite model written")
	}
	if _, err := ReadFile(path); err != nil {
		t.Fatalf("failed write damaged the previous file: %v", err)
	}
	if err := m.WriteFile(filepath.Join(dir, "missing", "m.json")); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after failed writes, want 1", len(entries))
	}
}

func TestDiscretize(t *testing.T) {
	m := randomModel(t, Third, 2, 4, 2, 5)
	d := m.Discretize()
	for _, w := range [][]float64{d.Ws, d.Wa} {
		vals := map[float64]bool{}
		for _, v := range w {
			vals[math.Abs(v)] = true
		}
		if len(vals) != 2 || !vals[0] {
			t.Errorf("discretized tensor takes magnitudes %v, want {0, α}", vals)
		}
	}
	if d.Bs[0] != m.Bs[0] || d.Wo[1] != m.Wo[1] {
		t.Error("biases or output weights changed")
	}
	if m.Ws[0] == d.Ws[0] && m.Ws[1] == d.Ws[1] {
		t.Error("the original model was modified or nothing changed")
	}
}

// TestSetConfig checks that a runner put into the configuration another run
// reached continues exactly as that run does.
func TestSetConfig(t *testing.T) {
	m, err := New(Shape{Order: Third, L: 2, J: 5, A: 2}, []rune("ab"))
	if err != nil {
		t.Fatal(err)
	}
	nntest.FillNormal(m.Params, 3, 4)
	syms := []int{0, 0, 1, 0, 1, 1, 0, 1, 1, 1}
	a, b := m.NewRunner(), m.NewRunner()
	for cut := range syms {
		a.Reset()
		for _, l := range syms[:cut] {
			a.Step(l)
		}
		b.SetConfig(append([]int(nil), a.Active()...), a.Stack.Symbols(), a.Stack.Popped())
		if a.Prediction() != b.Prediction() {
			t.Fatalf("cut %d: prediction %v after SetConfig, want %v", cut, b.Prediction(), a.Prediction())
		}
		for _, l := range append(syms[cut:], m.L) {
			if oa, ob := a.Step(l), b.Step(l); oa != ob || a.Prediction() != b.Prediction() {
				t.Fatalf("cut %d: runs differ after SetConfig", cut)
			}
		}
	}
}
