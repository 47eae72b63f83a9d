package tables

import (
	"math"
	"strings"
	"testing"

	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/experiment"
)

// fakeSource serves summaries by seed.
type fakeSource map[uint64]*experiment.Summary

func (f fakeSource) Summary(cfg experiment.Config) (*experiment.Summary, error) {
	return f[cfg.Seed], nil
}

// fakeRuns returns a source of n summaries with the given test60 errors and
// epochs, converged where conv says.
func fakeRuns(errs []float64, epochs []int, conv []bool) fakeSource {
	src := make(fakeSource)
	for i := range errs {
		src[uint64(i+1)] = &experiment.Summary{Converged: conv[i], Epochs: epochs[i], Chars: int64(100 * epochs[i]),
			Sets: []evaluate.Result{{Name: "test60", ErrorPct: errs[i]}}}
	}
	return src
}

func fiveSeeds() []experiment.Config { return seeds(small(), 5) }

func TestDescribe(t *testing.T) {
	s := Describe([]float64{1, 2, 3, 4, 5})
	// sd = sqrt(2.5); t(0.975, 4) = 2.7764451; half width = 2.7764451*1.5811388/sqrt(5).
	if s.N != 5 || s.Mean != 3 || math.Abs(s.SD-1.5811388) > 1e-6 || math.Abs(s.Low-1.0367568) > 1e-6 || math.Abs(s.High-4.9632432) > 1e-6 {
		t.Errorf("Describe = %+v", s)
	}
	if one := Describe([]float64{7}); one.Mean != 7 || !math.IsNaN(one.SD) || !math.IsNaN(one.Low) {
		t.Errorf("one value: %+v", one)
	}
	if none := Describe(nil); !math.IsNaN(none.Mean) {
		t.Errorf("no value: %+v", none)
	}
}

func TestCellText(t *testing.T) {
	all := []bool{true, true, true, true, true}
	cases := []struct {
		name   string
		metric Metric
		src    fakeSource
		want   string
		brief  string
	}{
		{"error, all converged", Metric{Kind: TestError, Set: "test60"}, fakeRuns([]float64{1, 2, 3, 4, 5}, []int{9, 9, 9, 9, 9}, all),
			"3.00 ± 1.58 [1.04, 4.96]", "3.00"},
		{"error, some not converged", Metric{Kind: TestError, Set: "test60"}, fakeRuns([]float64{1, 2, 3, 4, 5}, []int{9, 9, 9, 9, 9}, []bool{true, false, true, false, true}),
			"3.00 ± 1.58 [1.04, 4.96] (3/5 converged)", "3.00"},
		{"epochs, all converged", Metric{Kind: Epochs}, fakeRuns([]float64{0, 0, 0, 0, 0}, []int{70, 72, 74, 76, 78}, all),
			"74.0 ± 3.2 [70.1, 77.9]", "74.0"},
		{"epochs, 2 of 5", Metric{Kind: Epochs}, fakeRuns([]float64{0, 0, 0, 0, 0}, []int{85, 500, 120, 500, 500}, []bool{true, false, true, false, false}),
			"2/5 converged: 85.0, 120.0", "2/5 conv."},
		{"chars, none", Metric{Kind: Chars}, fakeRuns([]float64{0, 0, 0, 0, 0}, []int{500, 500, 400, 500, 500}, []bool{false, false, false, false, false}),
			"0/5 converged (> 40000 chars)", "0/5 conv."},
		{"unfinished", Metric{Kind: TestError, Set: "test60"}, fakeSource{1: {Converged: true, Sets: []evaluate.Result{{Name: "test60", ErrorPct: 2}}},
			3: {Converged: true, Sets: []evaluate.Result{{Name: "test60", ErrorPct: 4}}}}, "3.00 ± 1.41 [-9.71, 15.71] (2/5 runs finished)", "3.00 (2/5)"},
		{"none finished", Metric{Kind: TestError, Set: "test60"}, fakeSource{}, "not run yet (0/5)", "–"},
	}
	for _, c := range cases {
		r, err := collateCell(Cell{Configs: fiveSeeds(), Metric: c.metric, Paper: "0.06"}, c.src)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Ours(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if got := r.Brief(); got != c.brief {
			t.Errorf("%s: brief %q, want %q", c.name, got, c.brief)
		}
	}
	if r, _ := collateCell(Cell{Metric: Metric{Kind: Epochs}, Paper: "92"}, fakeSource{}); r.Ours() != "not run" || r.Paper() != "92" {
		t.Errorf("cell without runs: %q / %q", r.Ours(), r.Paper())
	}
}

// TestMarkdownAndCSV: every cell shows ours and the paper's number,
// labelled, and the files state their provenance.
func TestMarkdownAndCSV(t *testing.T) {
	tab, _ := Grid("noise", GridOptions{Seeds: 5})
	src := fakeRuns([]float64{1, 2, 3, 4, 5}, []int{9, 9, 9, 9, 9}, []bool{true, true, true, true, true})
	res, err := Collate(tab, src)
	if err != nil {
		t.Fatal(err)
	}
	prov := Provenance{Command: "nspda repro noise", Seeds: 5, Cores: 2, GoVersion: "go1.26"}
	md := string(Markdown(tab, res, prov, []string{"noise-bars"}))
	for _, want := range []string{
		"# Table 3", "Command: `nspda repro noise`", "Seeds: 5 (Config.Seed = 1..5)", "Machine: 2 cores, go1.26",
		"| | palindrome M1 | palindrome M2 |",
		"| w/o reg | ours: 3.00 ± 1.58 [1.04, 4.96]<br>paper: 4.55 | ours: 3.00 ± 1.58 [1.04, 4.96]<br>paper: 2.99 |",
		"[noise-bars](noise-bars.svg) ([PNG](noise-bars.png))",
		"| w/o reg | 3.00 · 4.55 | 3.00 · 2.99 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	csv := string(CSV(tab, res, prov))
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if !strings.HasPrefix(lines[0], "# Table 3") || lines[1] != "# Command: nspda repro noise" || !strings.HasPrefix(lines[4], "table,row,column") {
		t.Errorf("CSV head:\n%s", strings.Join(lines[:5], "\n"))
	}
	if len(lines) != 5+len(tab.Rows)*len(tab.Columns) {
		t.Errorf("CSV has %d lines", len(lines))
	}
	want := "noise,w reg,palindrome M1,test60 % error,5,5,5,5,3.0000,1.5811,1.0368,4.9632,1.0000;2.0000;3.0000;4.0000;5.0000,,0.00,\"3.00 ± 1.58 [1.04, 4.96]\""
	if !strings.Contains(csv, want+"\n") {
		t.Errorf("CSV lacks %q:\n%s", want, csv)
	}
}

// TestCompute: the compute line counts each run once, though the
// comparison table shows every run twice (train and test60 error), and sums
// the wall seconds of the finished runs only.
func TestCompute(t *testing.T) {
	tab, _ := Grid("comparison", GridOptions{Seeds: 5})
	src := fakeRuns([]float64{1, 2, 3}, []int{9, 9, 9}, []bool{true, true, true}) // seeds 1..3 finished
	for _, s := range src {
		s.WallSeconds = 720
	}
	res, err := Collate(tab, src)
	if err != nil {
		t.Fatal(err)
	}
	done, runs, secs := Compute(tab, res)
	// 18 rows × 5 languages, seeds 1..3 of 5 finished, 720 s each.
	if runs != 450 || done != 270 || secs != 270*720 {
		t.Fatalf("Compute = %d of %d runs, %v s; want 270 of 450, %v s", done, runs, secs, 270*720.0)
	}
	md := string(Markdown(tab, res, Provenance{Command: "nspda repro comparison", Seeds: 5}, nil))
	if want := "- Runs: 270 of 450 finished; compute: 54.0 hours"; !strings.Contains(md, want) {
		t.Errorf("Markdown lacks %q", want)
	}
}
