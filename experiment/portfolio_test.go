package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
)

// portfolioConfig is bothConfig as a portfolio with more starts: four long
// ones, three probes, a polish and, in the wide size, two final starts.
func portfolioConfig() Config {
	c := bothConfig()
	c.Portfolio = true
	c.Restarts, c.Probes, c.ProbePatience, c.Polish, c.FinalStarts, c.MaxEpochs = 3, 3, 1, 2, 2, 12
	return c
}

// runFiles are the files of the finished run in dir that must not depend
// on its workers or on being killed: metrics.jsonl, model.json, and
// summary.json without its wall time.
func runFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	var sum map[string]any
	if err := json.Unmarshal(read(t, filepath.Join(dir, SummaryFile)), &sum); err != nil {
		t.Fatal(err)
	}
	delete(sum, "wall_seconds")
	s, _ := json.Marshal(sum)
	return map[string][]byte{MetricsFile: read(t, filepath.Join(dir, MetricsFile)), ModelFile: read(t, filepath.Join(dir, ModelFile)), SummaryFile: s}
}

// TestPortfolioRun: a portfolio run of the size rule "both" writes the same
// metrics, model and summary on 1, 2 and 3 workers; killed after some of
// its epochs are committed, in either size, and resumed on another number
// of workers, the same as the run not killed; its metrics name the starts
// of its epochs; and its key is not the configuration's without portfolio.
func TestPortfolioRun(t *testing.T) {
	if testing.Short() {
		t.Skip("trains seven runs")
	}
	cfg := portfolioConfig()
	var want map[string][]byte
	for _, workers := range []int{1, 2, 3} {
		c := cfg
		c.Workers = workers
		dir := t.TempDir()
		sum, err := Train(context.Background(), c, dir, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := runFiles(t, dir)
		if workers == 1 {
			want = got
			lines := metricLines(t, dir)
			starts := map[int]bool{}
			for _, m := range lines {
				starts[m.Start] = true
			}
			t.Logf("%d epochs, wide from %d, kept %s, starts %v", len(lines), sum.WideFrom, sum.SizeRule, starts)
			if sum.WideFrom == 0 || len(starts) < 3 {
				t.Fatalf("wide from %d, starts %v: the test wants a failing first size and several starts", sum.WideFrom, starts)
			}
			continue
		}
		for f := range want {
			if !bytes.Equal(got[f], want[f]) {
				t.Errorf("%d workers: %s differs from 1 worker's", workers, f)
			}
		}
	}
	for _, stop := range []int{3, 20} {
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		c := cfg
		c.Workers = 2
		if _, err := Train(ctx, c, dir, false, cancelAfter(stop, cancel)); !errors.Is(err, context.Canceled) {
			t.Fatalf("the run killed after epoch %d returned %v", stop, err)
		}
		if _, err := Train(context.Background(), Config{Workers: 3}, dir, true, nil); err != nil {
			t.Fatal(err)
		}
		got := runFiles(t, dir)
		for f := range want {
			if !bytes.Equal(got[f], want[f]) {
				t.Errorf("killed after epoch %d and resumed: %s differs", stop, f)
			}
		}
	}
	plain := cfg
	plain.Portfolio = false
	if cfg.Key() == plain.Key() {
		t.Error("portfolio does not change the key")
	}
}
