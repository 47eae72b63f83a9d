package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/nn"
)

// storedNSPDARuns returns the first stored finished NSPDA run (by key) that
// keeps its weights, with test sets of each built-in grammar and order, up to perOrder grammars for each order;
// with all, every stored NSPDA run on a built-in grammar.
func storedNSPDARuns(t testing.TB, perOrder int, all bool) []string {
	t.Helper()
	dirs, err := finishedRuns(storedResults)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(dirs)
	seen := map[string]bool{}
	count := map[int]int{}
	var out []string
	for _, dir := range dirs {
		cfg, err := readConfig(dir)
		if err != nil {
			t.Fatal(err)
		}
		order := cfg.TensorOrder()
		if cfg.Model != "nspda" || cfg.Data != "" || !all && count[order] >= perOrder || !exists(filepath.Join(dir, ModelFile)) {
			continue // the store keeps only some runs' weights (Store.Restore)
		}
		if _, ok := grammar.Builtin(cfg.Grammar); !ok {
			continue
		}
		if sum, err := ReadSummary(dir); err != nil {
			t.Fatal(err)
		} else if len(sum.Sets) == 0 { // a search trial: no test set
			continue
		}
		if id := fmt.Sprint(cfg.Grammar, order); all || !seen[id] {
			seen[id] = true
			count[order]++
			out = append(out, dir)
		}
	}
	if count[2] < perOrder || count[3] < perOrder {
		t.Fatalf("found stored NSPDA runs of %d grammars at second order and %d at third; want %d of each", count[2], count[3], perOrder)
	}
	return out
}

// TestStoredEvaluation evaluates stored NSPDA runs of both orders again on
// their test sets (test60, test480, test960, regenerated from the test
// seed), as a finished run does (evaluateSets, on three goroutines), and
// requires the summary the run stored: every count, error % and length.
// Those were computed one string at a time by the Runner's Step, before the
// read tables and the parallel evaluation existed. It also checks, string by
// string on every tenth string of each set (every fiftieth with -short),
// that the read tables' answer and output y equal Step's bit for bit.
// NSPDA_STORED_EVAL=all checks every stored NSPDA run (minutes).
func TestStoredEvaluation(t *testing.T) {
	perOrder, every := 5, 10
	if testing.Short() {
		perOrder, every = 2, 50
	}
	all := os.Getenv("NSPDA_STORED_EVAL") == "all"
	runs := storedNSPDARuns(t, perOrder, all)
	for _, dir := range runs {
		sum, err := ReadSummary(dir)
		if err != nil {
			t.Fatal(err)
		}
		cfg := sum.Config
		lang, _ := grammar.Builtin(cfg.Grammar)
		net, refine, err := model.Load(filepath.Join(dir, ModelFile))
		if err != nil {
			t.Fatal(err)
		}
		sets, err := tests(cfg, lang)
		if err != nil {
			t.Fatal(err)
		}
		got, err := evaluateSets(sets, lang, net, refine, 3)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%s (%s, order %d, J %d)", filepath.Base(dir), cfg.Grammar, cfg.TensorOrder(), sum.J)
		if !reflect.DeepEqual(got, sum.Sets) {
			t.Errorf("%s: evaluated\n%+v\nstored\n%+v", name, got, sum.Sets)
		}
		if !all {
			t.Logf("%s: errors %d, %d, %d", name, got[0].Errors, got[1].Errors, got[2].Errors)
		}
		m := net.(nspda.Weighted).Weights()
		ref, run := m.NewRunner(), model.Classifier(net, refine)
		ref.Refine = refine
		for _, set := range sets {
			for i := 0; i < len(set.ex); i += every {
				syms, _ := lang.PDA.Encode(set.ex[i].String)
				okA, yA := stepClassify(ref, m.L, syms)
				okB, yB := run.Classify(syms)
				if okA != okB || math.Float64bits(yA) != math.Float64bits(yB) {
					t.Fatalf("%s: %s example %d: Classify %v %v, Step %v %v", name, set.name, i+1, okB, yB, okA, yA)
				}
			}
		}
	}
	t.Logf("%d stored runs", len(runs))
}

// stepClassify classifies syms as the Runner did before its read tables:
// Step over the string and the end marker L.
func stepClassify(r *nspda.Runner, L int, syms []int) (bool, float64) {
	r.Reset()
	for _, l := range syms {
		r.Step(l)
	}
	r.Step(L)
	return r.Prediction() > 0.5, r.Prediction()
}

// stepRunner is an nn.Classifier that classifies as the Runner did before
// its read tables (stepClassify): today's evaluation, for the benchmark.
type stepRunner struct {
	r *nspda.Runner
	L int
}

func (s stepRunner) Classify(syms []int) (bool, float64) { return stepClassify(s.r, s.L, syms) }

// BenchmarkEvaluateSets evaluates third-order NSPDAs on Dyck-2's test60,
// test480 and test960 (test seed 1, 1,026,564 symbols): "step" as before
// the read tables (one set after another, one string at a time through
// Step, one goroutine), "tables" on the read tables on one goroutine,
// "parallel" as a finished run now does (evaluateSets: the read tables on
// GOMAXPROCS goroutines). The models: "init-J32", J = 32 as a run
// initializes it (weights from U(−0.5, 0.5), seed 1), and "stored-J28", the
// first stored Dyck-2 run of J = 28 (a trained model). chars/s counts input
// symbols; every path must give the same results.
func BenchmarkEvaluateSets(b *testing.B) {
	lang, _ := grammar.Builtin("dyck2")
	sets, err := tests(Config{Tests: []string{"test60", "test480", "test960"}, TestSeed: 1}, lang)
	if err != nil {
		b.Fatal(err)
	}
	chars := 0
	for _, s := range sets {
		for _, e := range s.ex {
			chars += len(e.String)
		}
	}
	for _, mc := range []struct {
		name string
		net  nn.Model
	}{{"init-J32", initNet(b, lang, 32)}, {"stored-J28", storedNet(b, "dyck2", 3, 28)}} {
		m := mc.net.(nspda.Weighted).Weights()
		var want []evaluate.Result
		for _, path := range []string{"step", "tables", "parallel"} {
			b.Run(mc.name+"/"+path, func(b *testing.B) {
				var got []evaluate.Result
				for b.Loop() {
					switch path {
					case "step":
						got = serialSets(b, sets, lang, stepRunner{m.NewRunner(), m.L})
					case "tables":
						got = serialSets(b, sets, lang, model.Classifier(mc.net, 1))
					default:
						if got, err = evaluateSets(sets, lang, mc.net, 1, 0); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(b.N*chars)/b.Elapsed().Seconds(), "chars/s")
				if want == nil {
					want = got
				} else if !reflect.DeepEqual(got, want) {
					b.Fatalf("%s: %+v, want %+v", path, got, want)
				}
			})
		}
	}
}

// serialSets evaluates the sets one after another with c.
func serialSets(b *testing.B, sets []testSet, lang *grammar.Language, c evaluate.Classifier) []evaluate.Result {
	var out []evaluate.Result
	for _, s := range sets {
		r, err := evaluate.Run(s.name, c, lang.PDA, s.ex)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// initNet is a third-order NSPDA of J state neurons for lang as the
// registry initializes it, seed 1.
func initNet(b *testing.B, lang *grammar.Language, J int) nn.Model {
	spec, err := model.Lookup("nspda")
	if err != nil {
		b.Fatal(err)
	}
	net, err := spec.New(lang.PDA.Alphabet, nn.Options{Hidden: J, Own: model.Options("nspda")}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	return net
}

// storedNet loads the model of the first stored finished run (by key) of
// the NSPDA of the given order and J on grammar g.
func storedNet(b *testing.B, g string, order, J int) nn.Model {
	dirs, err := finishedRuns(storedResults)
	if err != nil {
		b.Fatal(err)
	}
	slices.Sort(dirs)
	for _, dir := range dirs {
		sum, err := ReadSummary(dir)
		if err != nil {
			b.Fatal(err)
		}
		if sum.Config.Model != "nspda" || sum.Config.Grammar != g || sum.Config.TensorOrder() != order || sum.J != J || !exists(filepath.Join(dir, ModelFile)) {
			continue
		}
		net, _, err := model.Load(filepath.Join(dir, ModelFile))
		if err != nil {
			b.Fatal(err)
		}
		return net
	}
	b.Fatalf("no stored run of the order-%d NSPDA with J = %d on %s", order, J, g)
	return nil
}
