package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/train"
)

// learning is small() with every learning option on: Adam's moments, the
// heads, the selection state and restarts must all survive a checkpoint.
func learning() Config {
	c := small()
	if err := c.Set("hints", 0); err != nil {
		panic(err)
	}
	c.Loss, c.NextWeight, c.LMWeight, c.ActionWeight = "viable", 1, 0.5, 1
	c.Optimizer, c.LR, c.Batch, c.ClipNorm = "adam", 0.01, 8, 5
	c.Patience, c.Restarts, c.MaxEpochs, c.Probes, c.ProbePatience = 2, 2, 8, 2, 1
	return c
}

// TestResumeLearningOptions: a run with every learning option, killed after
// three epochs and resumed, ends with the uninterrupted run's metrics and
// model byte for byte.
func TestResumeLearningOptions(t *testing.T) {
	cfg := learning()
	whole, broken := t.TempDir(), t.TempDir()
	if _, err := Train(context.Background(), cfg, whole, false, nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := Train(ctx, cfg, broken, false, cancelAfter(3, cancel)); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run returned %v", err)
	}
	if _, err := Train(context.Background(), Config{}, broken, true, nil); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{MetricsFile, ModelFile} {
		if !bytes.Equal(read(t, filepath.Join(whole, f)), read(t, filepath.Join(broken, f))) {
			t.Errorf("resumed run's %s differs from the uninterrupted run's", f)
		}
	}
	if !bytes.Contains(read(t, filepath.Join(whole, MetricsFile)), []byte(`"select_acc"`)) {
		t.Error("metrics carry no select_acc: selection did not run")
	}
}

// TestDefaultRecipeLearns: the default recipe learns aⁿbⁿ (seed 1) exactly,
// to length 960, on the paper's sets and on the edit sets (one edit away
// from members, at odd lengths too). A regression guard of docs/training.md's measurement, a
// few seconds on one core.
func TestDefaultRecipeLearns(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a full run")
	}
	cfg, err := Recipe("default")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Train(context.Background(), cfg, t.TempDir(), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Sets {
		if r.Errors != 0 {
			t.Errorf("%s: %d errors", r.Name, r.Errors)
		}
	}
	if !sum.Converged || len(sum.Sets) != 5 {
		t.Errorf("converged %v, %d test sets", sum.Converged, len(sum.Sets))
	}
}

// TestRecipes: the paper recipe is Defaults(), an unknown name is
// refused with the list, and the default and data recipes are valid.
func TestRecipes(t *testing.T) {
	p, err := Recipe("paper")
	if err != nil || p.Key() != Defaults().Key() {
		t.Fatalf("paper recipe %+v, %v", p, err)
	}
	if _, err := Recipe("fast"); err == nil {
		t.Fatal("unknown recipe accepted")
	}
	d, _ := Recipe("default")
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	// The default searches for a neutral symbol with starts of their own
	// patience, and takes the read's two-sided derivative; the
	// action recipe does neither.
	if d.NeutralWeight != 1 || d.NeutralPatience != 50 || !d.NeutralTwoSided || d.Option("two_sided") != nil {
		t.Errorf("default recipe: neutral weight %g, patience %d, two-sided in neutral starts %v, in all %v", d.NeutralWeight, d.NeutralPatience, d.NeutralTwoSided, d.Option("two_sided"))
	}
	if a, _ := Recipe("action"); a.NeutralWeight != 0 || a.NeutralTwoSided {
		t.Errorf("action recipe: neutral weight %g, two-sided %v", a.NeutralWeight, a.NeutralTwoSided)
	}
	// The default trains and selects with one-edit neighbours of members;
	// the action and data recipes keep the paper's sets.
	if d.Edits != 500 || !slices.Equal(d.Tests, []string{"test60", "test480", "test960", "edit60", "edit960"}) {
		t.Errorf("default recipe: edits %d, tests %v; want 500 and the paper's three and edit60, edit960", d.Edits, d.Tests)
	}
	for _, name := range []string{"action", "data", "paper"} {
		if r, _ := Recipe(name); r.Edits != 0 {
			t.Errorf("%s recipe: edits %d, want 0", name, r.Edits)
		}
	}
	for _, bad := range []func(c *Config){
		func(c *Config) { c.Restarts = 0 },                  // start 0 has no neutral symbol
		func(c *Config) { c.NeutralWeight = 0 },             // a patience for starts that are not there
		func(c *Config) { c.NeutralPatience = -1 },          // negative
		func(c *Config) { _ = c.Set("soft_stack", true) },   // two-sided needs the digital stack's derivative
		func(c *Config) { _ = c.Set("no_read_grad", true) }, // and the derivative itself
	} {
		c := d
		bad(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("default recipe changed to %+v: accepted", c)
		}
	}
	// The data recipe selects on lengths 22–200 and has the default's
	// short starts (docs/training.md).
	c, err := Recipe("data")
	if err == nil {
		err = c.Validate()
	}
	if err != nil || c.SelectMax != 200 || c.Probes != d.Probes || c.ProbePatience != d.ProbePatience || c.MaxEpochs != d.MaxEpochs {
		t.Errorf("data recipe: select-max %d, probes %d of patience %d, max-epochs %d, %v", c.SelectMax, c.Probes, c.ProbePatience, c.MaxEpochs, err)
	}
}

// TestDataTrainsLikeGrammar: the splits `nspda generate` writes, given to
// --data, train exactly as --grammar does with the data recipe (the same
// metrics and model, byte for byte).
func TestDataTrainsLikeGrammar(t *testing.T) {
	cfg, _ := Recipe("data")
	cfg.Hidden, cfg.MaxEpochs, cfg.Patience, cfg.Restarts, cfg.Size = 6, 3, 2, 1, ""
	cfg.Positives, cfg.Negatives, cfg.Tests = 80, 80, nil
	lang, _ := grammar.Builtin(cfg.Grammar)
	files := t.TempDir()
	write := func(name string, ex []dataset.Example) string {
		path := filepath.Join(files, name+".jsonl")
		if err := dataset.WriteFile(path, ex); err != nil {
			t.Fatal(err)
		}
		return path
	}
	trainSet, validSet, selSet, err := splits(cfg, lang)
	if err != nil {
		t.Fatal(err)
	}
	fromData := cfg
	fromData.Grammar, fromData.Positives, fromData.Negatives, fromData.SelectMax = "", 0, 0, 0
	fromData.Data, fromData.ValidData, fromData.SelectData = write("train", trainSet), write("valid", validSet), write("select", selSet)
	a, b := t.TempDir(), t.TempDir()
	if _, err := Train(context.Background(), cfg, a, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Train(context.Background(), fromData, b, false, nil); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{MetricsFile, ModelFile} {
		if !bytes.Equal(read(t, filepath.Join(a, f)), read(t, filepath.Join(b, f))) {
			t.Errorf("%s differs between --grammar and --data", f)
		}
	}
}

// bothConfig is a small run of the size rule "both" whose paper-size phase
// does not pass selection (palindromes in three epochs), so that its wide
// phase runs.
func bothConfig() Config {
	c := learning()
	c.Grammar, c.ActionWeight, c.LMWeight = "palindrome", 0, 0
	c.Probes, c.ProbePatience = 0, 0
	c.Patience, c.Restarts, c.MaxEpochs, c.Size = 2, 1, 3, "both"
	return c
}

// metricLines returns the lines of dir's metrics.jsonl, decoded.
func metricLines(t *testing.T, dir string) []train.Metrics {
	t.Helper()
	var out []train.Metrics
	for _, l := range strings.Split(strings.TrimSpace(string(read(t, filepath.Join(dir, MetricsFile)))), "\n") {
		var m train.Metrics
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// TestSizeBoth: a run of the size rule "both" whose first phase fails
// selection is that phase's run (the small size rule alone: the paper's at
// third order), then the wide rule's run, its metrics numbered on after the
// first's; it keeps the net of the two that selection scores better, and
// says which. Killed in either phase, or between them, and resumed, it ends
// byte for byte as the uninterrupted run. At both orders.
func TestSizeBoth(t *testing.T) {
	// Palindromes seed 1 keep the wide net, Dyck-2 seed 2 at the rate 0.1
	// the paper-size one.
	keeps := map[string]bool{}
	for _, tc := range []struct {
		grammar string
		seed    uint64
		lr      float64
	}{{"palindrome", 1, 0.01}, {"dyck2", 2, 0.1}} {
		cfg := bothConfig()
		cfg.Grammar, cfg.Seed, cfg.LR = tc.grammar, tc.seed, tc.lr
		keeps[sizeBoth(t, cfg)] = true
	}
	if !keeps["paper"] || !keeps["wide"] {
		t.Errorf("the cases kept %v, want both nets", keeps)
	}
	// At second order the first phase is the small size (M + U(2,6)), not
	// the paper's second-order rule.
	cfg := bothConfig()
	setOpts(&cfg, "order", 2)
	if kept := sizeBoth(t, cfg); kept != "small" && kept != "wide" {
		t.Errorf("second order kept the %q net", kept)
	}
}

// sizeBoth checks TestSizeBoth's properties of cfg and returns the size rule
// of the net it kept.
func sizeBoth(t *testing.T, cfg Config) string {
	paper, wide := cfg, cfg
	paper.Size, wide.Size = "small", "wide"
	dirs := map[string]string{}
	sums := map[string]*Summary{}
	for name, c := range map[string]Config{"both": cfg, "paper": paper, "wide": wide} {
		dirs[name] = t.TempDir()
		s, err := Train(context.Background(), c, dirs[name], false, nil)
		if err != nil {
			t.Fatal(err)
		}
		sums[name] = s
	}
	both, p, w := sums["both"], sums["paper"], sums["wide"]
	if both.WideFrom == 0 || both.WideFrom != p.Epochs {
		t.Fatalf("wide_from %d, want the paper-size run's %d epochs (and its selection failed)", both.WideFrom, p.Epochs)
	}
	if p.J >= w.J {
		t.Fatalf("paper J %d, wide J %d", p.J, w.J)
	}
	lines, pl, wl := metricLines(t, dirs["both"]), metricLines(t, dirs["paper"]), metricLines(t, dirs["wide"])
	if len(lines) != len(pl)+len(wl) {
		t.Fatalf("%d metric lines, want %d + %d", len(lines), len(pl), len(wl))
	}
	last := pl[len(pl)-1]
	for i, m := range lines {
		want := pl[min(i, len(pl)-1)]
		if i >= len(pl) {
			want = wl[i-len(pl)]
			want.Epoch += last.Epoch
			want.Chars += last.Chars
		}
		if !reflect.DeepEqual(m, want) {
			t.Fatalf("metric line %d: %+v, want %+v", i+1, m, want)
		}
	}
	kept := "wide"
	if !(w.TrainErrorPct+100-*selectAcc(t, dirs["wide"], w.SelectedEpoch) < p.TrainErrorPct+100-*selectAcc(t, dirs["paper"], p.SelectedEpoch)) {
		kept = cfg.FirstSize()
	}
	t.Logf("first (small-size) phase %d epochs (J %d), wide %d (J %d); kept %s", p.Epochs, p.J, w.Epochs, w.J, both.SizeRule)
	if both.SizeRule != kept {
		t.Errorf("kept the %s net, want the %s one", both.SizeRule, kept)
	}
	run := "paper" // the single-size run of the kept net
	if kept == "wide" {
		run = "wide"
	}
	if !bytes.Equal(read(t, filepath.Join(dirs["both"], ModelFile)), read(t, filepath.Join(dirs[run], ModelFile))) {
		t.Errorf("model.json is not the %s run's", kept)
	}
	if j := map[string]int{"paper": p.J, "wide": w.J}[run]; both.J != j || both.Epochs != p.Epochs+w.Epochs && !both.Converged {
		t.Errorf("J %d (want %d), epochs %d", both.J, j, both.Epochs)
	}
	if exists(filepath.Join(dirs["both"], paperSizeFile)) {
		t.Errorf("%s left in a finished run", paperSizeFile)
	}
	// Killed in the paper-size phase, at its last epoch (the wide phase
	// has not begun: resuming starts it), and in the wide phase.
	for _, at := range []int{1, both.WideFrom, both.WideFrom + 1} {
		broken := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		if _, err := Train(ctx, cfg, broken, false, cancelAfter(at, cancel)); !errors.Is(err, context.Canceled) {
			t.Fatalf("killed at %d: %v", at, err)
		}
		st, err := Status(broken)
		if err != nil || st.Epoch != at || (st.WideFrom != 0) != (at >= both.WideFrom) {
			t.Fatalf("killed at %d: status %+v, %v", at, st, err)
		}
		if _, err := Train(context.Background(), Config{}, broken, true, nil); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{MetricsFile, ModelFile} {
			if !bytes.Equal(read(t, filepath.Join(dirs["both"], f)), read(t, filepath.Join(broken, f))) {
				t.Errorf("killed at %d: the resumed run's %s differs from the uninterrupted run's", at, f)
			}
		}
	}
	return both.SizeRule
}

// selectAcc is the select_acc of dir's metrics at epoch e.
func selectAcc(t *testing.T, dir string, e int) *float64 {
	t.Helper()
	for _, m := range metricLines(t, dir) {
		if m.Epoch == e {
			return m.SelectAcc
		}
	}
	t.Fatalf("%s: no epoch %d", dir, e)
	return nil
}

// TestActionTermsNeedActionNeurons: the action loss is refused, with a
// message that names the model, for a model without action neurons.
func TestActionTermsNeedActionNeurons(t *testing.T) {
	for _, set := range []func(c *Config){
		func(c *Config) { c.ActionWeight = 1 },
	} {
		c, _ := Recipe("data-serial")
		c = c.WithModel("elman")
		c.Hidden, c.MaxEpochs, c.Patience, c.Restarts, c.Probes, c.Size, c.SelectMax = 4, 1, 0, 0, 0, "", 0
		c.Positives, c.Negatives, c.Tests = 20, 20, nil
		set(&c)
		_, err := Train(context.Background(), c, t.TempDir(), false, nil)
		if err == nil || !strings.Contains(err.Error(), "action neurons (nspda), not elman") {
			t.Errorf("action weight %g: got %v, want a refusal that names elman", c.ActionWeight, err)
		}
	}
}
