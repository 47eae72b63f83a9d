package tables

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/nspda/nspda/experiment"
)

// TestLengthBins: the bins cover 22..960 without gaps.
func TestLengthBins(t *testing.T) {
	for _, quick := range []bool{false, true} {
		bins := LengthBins(quick)
		if bins[0].Min != 22 || bins[len(bins)-1].Max != 960 {
			t.Errorf("bins span %d..%d", bins[0].Min, bins[len(bins)-1].Max)
		}
		for i := 1; i < len(bins); i++ {
			if bins[i].Min != bins[i-1].Max+1 {
				t.Errorf("gap between %+v and %+v", bins[i-1], bins[i])
			}
		}
	}
}

// TestStoredLengthsCached: a run's errors by length are computed once and
// read back from lengths.json while the bins are the same.
func TestStoredLengthsCached(t *testing.T) {
	s := experiment.Store{Dir: t.TempDir()}
	cfg := small()
	if _, _, err := s.Run(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	bins := LengthBins(true)[:2]
	sets := &lengthSets{}
	first, err := sets.storedLengths(s, cfg, bins)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Results) != 2 || first.Results[0].Strings == 0 || first.Results[1].MinLen < 61 {
		t.Fatalf("results %+v", first.Results)
	}
	path := filepath.Join(s.RunDir(cfg.Key()), LengthsFile)
	os.Remove(filepath.Join(s.RunDir(cfg.Key()), experiment.ModelFile)) // a recomputation would now fail
	again, err := sets.storedLengths(s, cfg, bins)
	if err != nil || !reflect.DeepEqual(first, again) {
		t.Fatalf("cached read: %v, %+v", err, again)
	}
	if _, err := sets.storedLengths(s, cfg, LengthBins(true)); err == nil {
		t.Errorf("other bins were served from %s", path)
	}
}

// TestProgrammedSource: a programmed network makes no errors, at any
// length, in either order.
func TestProgrammedSource(t *testing.T) {
	tab, _ := Grid("programmed", GridOptions{Seeds: 1})
	src := &programmedSource{}
	for _, row := range tab.Cells {
		for _, cell := range row[:6] { // palindrome and anbn, n = 60, 480, 960
			sum, err := src.Summary(cell.Configs[0])
			if err != nil {
				t.Fatal(err)
			}
			if v, ok := cell.Metric.Value(sum); !ok || v != 0 {
				t.Errorf("order %d %s %s: error %v (ok %v)", cell.Configs[0].TensorOrder(), cell.Configs[0].Grammar, cell.Metric.Set, v, ok)
			}
		}
	}
	sets := &lengthSets{}
	le, err := src.lengths(sets, tab.Cells[0][0].Configs[0], LengthBins(true))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range le.Results {
		if r.Errors != 0 {
			t.Errorf("programmed network: %d errors at lengths %s", r.Errors, r.Name)
		}
	}
}
