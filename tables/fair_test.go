package tables

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/internal/atomicfile"
)

// TestFairRecipeEveryModel: the fair recipe's learning options (Adam,
// minibatches, norm clipping, the language-model head, selection on the
// select split with patience, restarts), with the copied
// label and with the final-step loss, train every model of the fair table
// for two epochs on a few strings without error.
func TestFairRecipeEveryModel(t *testing.T) {
	for _, r := range fairRows() {
		for _, loss := range []string{"", "final"} {
			t.Run(fmt.Sprintf("%s/%s", r.label, loss), func(t *testing.T) {
				c := FairRecipe(r.model, "anbn", r.order, r.rounding)
				c.LR, c.Hidden, c.Loss = 0.01, 6, loss
				c.Positives, c.Negatives, c.Batch = 20, 20, 8
				c.MaxEpochs, c.Patience, c.Restarts = 2, 1, 1
				c.Tests = []string{"test60"}
				if err := c.Validate(); err != nil {
					t.Fatal(err)
				}
				sum, err := experiment.Train(context.Background(), c, t.TempDir(), false, nil)
				if err != nil {
					t.Fatal(err)
				}
				if sum.Epochs < 1 || sum.SelectedEpoch < 1 || len(sum.Sets) != 1 {
					t.Errorf("epochs %d, selected %d, %d sets", sum.Epochs, sum.SelectedEpoch, len(sum.Sets))
				}
			})
		}
	}
}

// TestFairSettings: the search's candidates are deterministic, in range,
// and cycle through the hidden sizes.
func TestFairSettings(t *testing.T) {
	a, b := FairSettings(FairTrials), FairSettings(FairTrials)
	for i, s := range a {
		if s != b[i] {
			t.Fatalf("trial %d: %v then %v", i, s, b[i])
		}
		if s.LR < FairLRMin || s.LR > FairLRMax || s.Hidden != FairHidden[i%len(FairHidden)] {
			t.Errorf("trial %d: %+v out of the search's range", i, s)
		}
	}
	// Stratified: one rate in each eighth of the log range.
	seen := make([]bool, FairTrials)
	for _, s := range a {
		k := int(float64(FairTrials) * math.Log(s.LR/FairLRMin) / math.Log(FairLRMax/FairLRMin))
		seen[min(k, FairTrials-1)] = true
	}
	for k, ok := range seen {
		if !ok {
			t.Errorf("no rate in stratum %d: %v", k, a)
		}
	}
}

// fairTestRows are two rows of the fair table, a baseline and the NSPDA.
func fairTestRows() []fairRow {
	return []fairRow{{label: "RNN (elman)", model: "elman", paper: "RNN (elman)"}, {label: "NSPDA M2", model: "nspda", order: 3, paper: "NSPDA M2"}}
}

// TestFairResolvePhases: before its trials finish, a row and language has
// no runs and its trials are the table's Search; once they are, its cells
// are seeds of the selected trial's setting, and its trials leave Search.
func TestFairResolvePhases(t *testing.T) {
	opt := GridOptions{Seeds: 2, Quick: true}
	tab := fairGrid(&Table{Name: "fair"}, opt, fairTestRows(), []string{"anbn", "dyck2"})
	if !tab.Staged() || !tab.Pending() || len(tab.Search) != 2*2*FairQuickTrials || len(tab.Configs()) != len(tab.Search) {
		t.Fatalf("unresolved: staged %v, %d trials, %d runs", tab.Staged(), len(tab.Search), len(tab.Configs()))
	}
	for _, c := range tab.Search {
		if len(c.Tests) != 0 || c.Seed <= fairTrialSeed0 {
			t.Errorf("trial %+v: tests %v, seed %d", c, c.Tests, c.Seed)
		}
		if err := c.Validate(); err != nil {
			t.Error(err)
		}
	}
	// Finish the elman trials on anbn only, with made-up scores: trial 2
	// is the better one.
	store := experiment.Store{Dir: t.TempDir()}
	for i, c := range fairTrials(opt, fairTestRows()[0], "anbn") {
		fakeTrial(t, store, c, []float64{30, 10}[i], []float64{60, 70}[i])
	}
	res, err := Resolve(tab, StoreSource{store})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Search) != 3*FairQuickTrials {
		t.Errorf("%d trials still to run, want %d", len(res.Search), 3*FairQuickTrials)
	}
	cell := res.Cells[0][0]
	want := FairSettings(FairQuickTrials)[1]
	if len(cell.Configs) != 2 || cell.Configs[0].LR != want.LR || cell.Configs[0].Hidden != want.Hidden || cell.Configs[1].Seed != 2 ||
		len(cell.Configs[0].Tests) == 0 || !strings.Contains(cell.Note, "trial 2 of 2") {
		t.Errorf("anbn cell after the search: %+v", cell)
	}
	if c := res.Cells[0][len(fairMetrics)]; c.Configs != nil || !strings.Contains(c.Note, "0/2 trials") {
		t.Errorf("dyck2 cell before its search: %+v", c)
	}
}

// fakeTrial stores a finished run of c with the given training error and
// select-split accuracy at its selected epoch.
func fakeTrial(t *testing.T, s experiment.Store, c experiment.Config, trainErr, selectAcc float64) {
	t.Helper()
	dir := s.RunDir(c.Key())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteJSON(filepath.Join(dir, experiment.ConfigFile), c); err != nil {
		t.Fatal(err)
	}
	m := fmt.Sprintf("{\"epoch\":1,\"select_acc\":0}\n{\"epoch\":2,\"select_acc\":%g}\n", selectAcc)
	if err := os.WriteFile(filepath.Join(dir, experiment.MetricsFile), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteJSON(filepath.Join(dir, experiment.SummaryFile), experiment.Summary{Key: c.Key(), Config: c, Epochs: 2, SelectedEpoch: 2, TrainErrorPct: trainErr}); err != nil {
		t.Fatal(err)
	}
}

// TestFairSearchSeesNoTestSet: the search's trials have no test set (a run
// without Tests draws none: experiment's TestTrainingSeesNoTestSet), and
// the selection reads no test set: trials whose summaries carry test
// results, the better trial's the worse, select the same setting.
func TestFairSearchSeesNoTestSet(t *testing.T) {
	opt := GridOptions{Seeds: 1, Quick: true}
	tab := fairGrid(&Table{Name: "fair"}, opt, fairTestRows()[:1], []string{"anbn"})
	var digests []string
	for _, withTests := range []bool{false, true} {
		store := experiment.Store{Dir: t.TempDir()}
		for i, c := range fairTrials(opt, fairTestRows()[0], "anbn") {
			if len(c.Tests) != 0 {
				t.Fatalf("trial %d has test sets %v", i, c.Tests)
			}
			fakeTrial(t, store, c, []float64{30, 10}[i], []float64{60, 70}[i])
			if withTests {
				dir := store.RunDir(c.Key())
				sum, err := experiment.ReadSummary(dir)
				if err != nil {
					t.Fatal(err)
				}
				sum.Sets = []evaluate.Result{{Name: "test60", Strings: 10, ErrorPct: []float64{0, 90}[i]}}
				if err := atomicfile.WriteJSON(filepath.Join(dir, experiment.SummaryFile), sum); err != nil {
					t.Fatal(err)
				}
			}
		}
		res, err := Resolve(tab, StoreSource{store})
		if err != nil || res.Pending() {
			t.Fatalf("resolve: %v, pending %v", err, res.Pending())
		}
		digests = append(digests, gridDigest(res.Configs()))
	}
	if digests[0] != digests[1] {
		t.Error("the trials' test results changed the selected settings")
	}
}
