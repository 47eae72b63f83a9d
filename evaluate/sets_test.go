package evaluate

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/grammar"
)

// hashClassifier answers by a hash of the string (wrong about half the
// time) and fails the test if two goroutines use it at once. It records the
// lengths it sees.
type hashClassifier struct {
	t    *testing.T
	busy atomic.Bool
	lens []int
}

func (c *hashClassifier) Classify(syms []int) (bool, float64) {
	if !c.busy.CompareAndSwap(false, true) {
		c.t.Error("a classifier is used by two goroutines at once")
	}
	defer c.busy.Store(false)
	c.lens = append(c.lens, len(syms))
	h := uint64(len(syms))
	for _, s := range syms {
		h = h*31 + uint64(s)
	}
	return h%3 != 0, 0.5
}

// randomSets returns sets of random strings over {a, b} (lengths 0 to
// 200, some sets empty), labelled by the PDA of aⁿbⁿ.
func randomSets(lang *grammar.Language, seed uint64) []Set {
	rng := rand.New(rand.NewPCG(seed, 1))
	var sets []Set
	for s := range 5 {
		var ex []dataset.Example
		for range rng.IntN(3) * rng.IntN(150) {
			var b strings.Builder
			for range rng.IntN(rng.IntN(200) + 1) {
				b.WriteByte("ab"[rng.IntN(2)])
			}
			label := 0
			if lang.Recognize(b.String()) {
				label = 1
			}
			ex = append(ex, dataset.Example{String: b.String(), Label: label})
		}
		sets = append(sets, Set{Name: fmt.Sprint("set", s), Ex: ex})
	}
	return sets
}

// TestRunSets: RunSets gives Run's results for any number of workers, each
// worker with a classifier of its own, made once.
func TestRunSets(t *testing.T) {
	lang, _ := grammar.Builtin("anbn")
	for seed := range uint64(6) {
		sets := randomSets(lang, seed)
		var want []Result
		total := 0
		for _, s := range sets {
			r, err := Run(s.Name, &hashClassifier{t: t}, lang.PDA, s.Ex)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, r)
			total += len(s.Ex)
		}
		for _, workers := range []int{0, 1, 2, 3, 8} {
			var made []*hashClassifier
			got, err := RunSets(sets, func() Classifier {
				c := &hashClassifier{t: t}
				made = append(made, c)
				return c
			}, lang.PDA, workers)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d, %d workers: %+v, Run %+v", seed, workers, got, want)
			}
			if workers == 0 {
				workers = runtime.GOMAXPROCS(0)
			}
			seen := 0
			for _, c := range made {
				seen += len(c.lens)
			}
			if n := max(1, min(workers, total)); len(made) != n || seen != total {
				t.Fatalf("seed %d, %d workers: %d classifiers classified %d strings; want %d and %d", seed, workers, len(made), seen, n, total)
			}
		}
	}
}

// TestRunSetsOrder: one worker sees the strings in order, set after set;
// with several, each sees the strings it gets longest first.
func TestRunSetsOrder(t *testing.T) {
	lang, _ := grammar.Builtin("anbn")
	sets := randomSets(lang, 1)
	var want []int
	for _, s := range sets {
		for _, e := range s.Ex {
			want = append(want, len(e.String))
		}
	}
	if len(want) < 100 {
		t.Fatalf("only %d strings", len(want))
	}
	for _, workers := range []int{1, 3} {
		var made []*hashClassifier
		if _, err := RunSets(sets, func() Classifier {
			made = append(made, &hashClassifier{t: t})
			return made[len(made)-1]
		}, lang.PDA, workers); err != nil {
			t.Fatal(err)
		}
		if workers == 1 {
			if !slices.Equal(made[0].lens, want) {
				t.Errorf("one worker saw lengths %v, want %v", made[0].lens, want)
			}
			continue
		}
		for w, c := range made {
			for i := 1; i < len(c.lens); i++ {
				if c.lens[i] > c.lens[i-1] {
					t.Fatalf("worker %d: string %d has %d symbols, after one of %d", w, i, c.lens[i], c.lens[i-1])
				}
			}
		}
	}
}

// TestRunSetsBadSymbol: a symbol outside the alphabet is Run's error,
// naming the set and the example, and nothing is classified.
func TestRunSetsBadSymbol(t *testing.T) {
	lang, _ := grammar.Builtin("anbn")
	sets := []Set{{"one", []dataset.Example{{String: "ab", Label: 1}}}, {"two", []dataset.Example{{String: "ab", Label: 1}, {String: "abc", Label: 0}}}}
	calls := 0
	_, err := RunSets(sets, func() Classifier {
		calls++
		return alwaysYes{}
	}, lang.PDA, 2)
	_, want := Run("two", alwaysYes{}, lang.PDA, sets[1].Ex)
	if err == nil || want == nil || err.Error() != want.Error() || !strings.Contains(err.Error(), "two: example 2") {
		t.Fatalf("error %v, want Run's %v", err, want)
	}
	if calls != 0 {
		t.Errorf("%d classifiers made before the error", calls)
	}
}

// TestRunSetsMemory holds evaluation's memory to the strings it is given: a
// set of long strings costs a few bytes per string beside them, not 8 bytes
// a symbol (every string encoded at once took 1.7 GB for a 52 MB data file).
func TestRunSetsMemory(t *testing.T) {
	lang, _ := grammar.Builtin("anbn")
	const n, half = 2000, 500 // 2000 strings of 1000 symbols: 2 MB
	ex := make([]dataset.Example, n)
	for i := range ex {
		ex[i] = dataset.Example{String: strings.Repeat("a", half) + strings.Repeat("b", half), Label: 1}
	}
	sets := []Set{{Name: "long", Ex: ex}}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := RunSets(sets, func() Classifier { return lengthClassifier{} }, lang.PDA, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := Run("long", lengthClassifier{}, lang.PDA, ex); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// Both calls together: 64 bytes a string and 256 KiB for buffers; the
	// old encoding allocated 8 bytes a symbol per call, 32 MB here.
	budget := uint64(64*n + 256<<10)
	if got := after.TotalAlloc - before.TotalAlloc; got > budget {
		t.Errorf("evaluating %d strings of %d symbols allocated %d bytes, over the budget of %d", n, 2*half, got, budget)
	}
}

// lengthClassifier accepts the strings of even length; it allocates nothing.
type lengthClassifier struct{}

func (lengthClassifier) Classify(syms []int) (bool, float64) { return len(syms)%2 == 0, 0 }
