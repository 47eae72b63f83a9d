package experiment

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nspda/nspda/model"
)

// TestRecipesUnchanged: the recipes as data make the configurations the
// recipes as code made (legacy_test.go), byte for byte, and an unknown
// name is refused with the same message.
func TestRecipesUnchanged(t *testing.T) {
	for _, name := range append(Recipes(), "bogus", "") {
		// The legacy code's default is serial's: the default's starts,
		// one at a time (TestStartEpochs checks the default from it).
		as := name
		switch name {
		case "default":
			as = "serial"
		case "data":
			// And the legacy data recipe is data-serial's
			// (TestDataRecipe checks data from it).
			as = "data-serial"
		}
		got, gerr := Recipe(as)
		want, werr := legacyRecipe(name)
		if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
			t.Fatalf("%q: error %v, want %v", name, gerr, werr)
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if !bytes.Equal(g, w) || got.Key() != want.Key() || !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %s\nwant %s", name, g, w)
		}
	}
	// serial and data-serial are taken but not offered.
	if !IsRecipe("serial") || !IsRecipe("data-serial") || strings.Contains(strings.Join(Recipes(), " "), "serial") || IsRecipe("bogus") {
		t.Errorf("recipes offered %v; serial a recipe: %v", Recipes(), IsRecipe("serial"))
	}
	// A caller changing its recipe's tests changes no later recipe.
	c, _ := Recipe("default")
	c.Tests[0] = "changed"
	if c, _ := Recipe("default"); c.Tests[0] != "test60" {
		t.Fatalf("the recipe's tests were shared: %v", c.Tests)
	}
}

// TestDataRecipe: the data recipe is data-serial (its targets, selection
// and alternating stacks) with the default's neutral-symbol starts
// (without the two-sided derivative, which the superposition stack
// replaces), bounded portfolio and finish.
func TestDataRecipe(t *testing.T) {
	data, err := Recipe("data")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Recipe("data-serial")
	def, _ := Recipe("default")
	want.NeutralWeight, want.NeutralPatience = def.NeutralWeight, def.NeutralPatience
	want.Portfolio, want.StartEpochs, want.ProbeEpochs = def.Portfolio, def.StartEpochs, def.ProbeEpochs
	want.Finish, want.FinishRate, want.FinishBeta = def.Finish, def.FinishRate, def.FinishBeta
	if !reflect.DeepEqual(data, want) {
		t.Errorf("data recipe:\n got %+v\nwant %+v", data, want)
	}
	if data.Finish == 0 || !data.Portfolio || data.NeutralWeight == 0 || data.Option("soft_alternate") != true {
		t.Errorf("data recipe without the default's search or the alternating stacks: %+v", data)
	}
	if err := data.Validate(); err != nil {
		t.Errorf("data recipe: %v", err)
	}
}

// mutations are values tried for each setting by
// TestLearningChecksUnchanged: the edges of each check.
var mutations = map[string][]any{
	"int":      {-1, 0, 1, 2, 3, 21, 22, 40, 50, 200, 1 << 20},
	"float64":  {-1.0, 0.0, 0.5, 1.0, 3.0, 150.0, math.NaN(), math.Inf(1)},
	"bool":     {false, true},
	"uint64":   {uint64(0), uint64(1), uint64(7)},
	"string":   {"", "bogus", "viable", "label", "final", "adam", "sgd", "luby", "train-first", "program", "both", "wide", "small", "x.jsonl", "anbn", "ab"},
	"[]string": {[]string(nil), []string{"t.jsonl"}},
}

// optionMutations are model options tried beside the settings.
var optionMutations = map[string][]any{
	"soft_stack": {false, true}, "soft_alternate": {false, true}, "no_read_grad": {false, true},
	"hints": {0, 1, 2}, "dead_hint": {false, true}, "order": {2, 3},
}

// TestLearningChecksUnchanged: the learning options' checks as a table
// refuse what the switch of 42 cases refused, with the same first error,
// on configurations of every recipe and model with random settings changed.
func TestLearningChecksUnchanged(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := SettingKeys()
	n := 40000
	if testing.Short() {
		n = 8000
	}
	refused, seen := 0, map[string]bool{}
	for i := range n {
		c, _ := Recipe(Recipes()[i%len(Recipes())])
		specs := model.Specs()
		c = c.WithModel(specs[rng.IntN(len(specs))].Name)
		for range 1 + rng.IntN(4) {
			if rng.IntN(4) == 0 {
				ks := sortedKeys(optionMutations)
				k := ks[rng.IntN(len(ks))]
				vs := optionMutations[k]
				_ = c.Set(k, vs[rng.IntN(len(vs))])
				continue
			}
			k := keys[rng.IntN(len(keys))]
			v, _ := c.Get(k)
			vs, ok := mutations[reflect.TypeOf(v).String()]
			if !ok {
				t.Fatalf("no mutations of %s (%T)", k, v)
			}
			if err := c.setField(k, vs[rng.IntN(len(vs))]); err != nil {
				t.Fatal(err)
			}
		}
		spec, err := model.Lookup(c.Model)
		if err != nil {
			continue
		}
		got, want := c.validateLearning(spec), c.legacyValidateLearning(spec)
		if (got == nil) != (want == nil) || got != nil && got.Error() != settingNames.Replace(want.Error()) {
			t.Fatalf("%s: got %v, want %v", c.Key(), got, want)
		}
		if got != nil {
			refused++
			seen[got.Error()] = true
		}
	}
	if refused == 0 || refused == n {
		t.Fatalf("%d of %d refused: the mutations do not reach both sides", refused, n)
	}
	t.Logf("%d configurations, %d refused, %d distinct errors", n, refused, len(seen))
}

// TestReadRecipeFile: a recipe file makes the configuration its base and
// settings make given one by one, and a mistake in it is refused naming
// the file, the line and the key.
func TestReadRecipeFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := write("r.yaml", "# no polish, no edits\nbase: default\nset:\n  polish: 0\n  edits: 0\n  neutral_patience: 30\n  soft_stack: false\n  tests: [test60, edit60]\n  lr: 0.02\n")
	base, set, err := ReadRecipeFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if base != "default" || len(set) != 6 || set[0].Name != p+":4: polish" {
		t.Fatalf("base %q, settings %+v", base, set)
	}
	got, err := Build(base, set)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Build("default", []Setting{
		{Key: "polish", Value: 0}, {Key: "edits", Value: 0}, {Key: "neutral_patience", Value: 30},
		{Key: "soft_stack", Value: false}, {Key: "tests", Value: []string{"test60", "edit60"}}, {Key: "lr", Value: 0.02},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Key() != want.Key() || got.Polish != 0 || got.Edits != 0 || got.NeutralPatience != 30 || got.LR != 0.02 {
		t.Fatalf("recipe file made %+v, want %+v", got, want)
	}
	for _, tc := range []struct{ text, want string }{
		{"base: default\nsets:\n  polish: 0\n", `:2: unknown key "sets"`},
		{"base: default\nset:\n  polish: 0\n  polsh: 1\n", `:4: unknown setting "polsh"`},
		{"base: defualt\n", ":1: base: want a recipe's name"},
		{"set:\n  polish: 0\n  polish: 1\n", ":3: polish is set twice"},
		{"set: [polish]\n", ":1: set: want a mapping"},
		{"set:\n  polish:\n", ":2: polish: want a value"},
		{"", ":1: empty recipe file"},
		{"- 1\n", ":1: want a mapping with keys base and set"},
		{"base: default\n---\nbase: paper\n", ":2: more than one YAML document"},
		{"set:\n  polish: [1\n", "malformed YAML"},
	} {
		p := write("bad.yaml", tc.text)
		_, _, err := ReadRecipeFile(p)
		if err == nil || !strings.HasPrefix(err.Error(), p+":") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, p+tc.want)
		}
	}
	// A setting the configuration cannot hold names the file's line.
	p = write("type.yaml", "set:\n  batch: 2.5\n")
	_, set, err = ReadRecipeFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build("", set); err == nil || !strings.Contains(err.Error(), p+":2: batch") {
		t.Errorf("batch 2.5: %v", err)
	}
}

// settingNames maps the old checks' messages, which named settings by the
// train flags they once had, to the names the checks use now: the config
// keys (--opt KEY=VALUE and recipe files set them).
var settingNames = strings.NewReplacer(
	"stage2-annealed", "stage2_annealed", "eval-refine", "eval_refine",
	"init-scale", "init_scale", "--final-starts", "final_starts", "--polish needs", "polish needs",
	"first-patience", "first_patience", "probe-patience", "probe_patience",
	"probe-long", "probe_long", "own-patience", "own_patience",
	"select-max", "select_max", "select-rule", "select_rule",
	"lock-step", "lock_step", "soft-alternate", "soft_alternate",
	"--neutral-weight needs", "neutral_weight needs", "--neutral-patience needs --neutral-weight", "neutral_patience needs neutral_weight",
	"--final-neutral-weight needs --neutral-weight and --final-starts", "final_neutral_weight needs neutral_weight and final_starts",
	"--neutral-two-sided needs --neutral-weight", "neutral_two_sided needs neutral_weight",
	"--neutral-two-sided is", "neutral_two_sided is", "no-read-grad or soft-stack", "no_read_grad or soft_stack",
)
