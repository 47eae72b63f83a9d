package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/nspda/nspda/experiment"
)

// --opt KEY=VALUE sets any setting of a configuration (KEY a key of
// config.json) or a model option (a JSON key of the model's options, as
// 'nspda models' lists them): a setting needs no flag of its own. The
// settings without a flag are those that mean something only beside
// another, and the phases' patiences and weights; settingHelp says what
// each does.

// optList is the pflag.Value of --opt KEY=VALUE (repeated): VALUE is read as
// JSON (2, true, 1.5, "x") or else as a string. --opt help asks for the
// list of settings.
type optList struct {
	list []experiment.Setting
	help bool
}

func (l *optList) String() string { return "[" + strings.Join(l.GetSlice(), ",") + "]" }

func (l *optList) Type() string { return "key=value" }

func (l *optList) Set(s string) error { return l.Append(s) }

func (l *optList) Append(s string) error {
	if s == "help" {
		l.help = true
		return nil
	}
	key, text, ok := strings.Cut(s, "=")
	if !ok || key == "" {
		return errors.New("want KEY=VALUE (--opt help lists the keys)")
	}
	var val any
	if err := json.Unmarshal([]byte(text), &val); err != nil {
		val = text
	}
	l.list = append(l.list, experiment.Setting{Key: key, Value: val, Name: "--opt " + key})
	return nil
}

func (l *optList) Replace(ss []string) error {
	l.list = nil
	for _, s := range ss {
		if err := l.Append(s); err != nil {
			return err
		}
	}
	return nil
}

func (l *optList) GetSlice() []string {
	var out []string
	for _, g := range l.list {
		b, _ := json.Marshal(g.Value)
		if s, ok := g.Value.(string); ok && !json.Valid([]byte(s)) {
			b = []byte(s) // read back as a string (Append)
		}
		out = append(out, g.Key+"="+string(b))
	}
	return out
}

// settingHelp says what each setting without a flag of train does (the
// flags' help says what theirs do).
var settingHelp = map[string]string{
	"window":               "tbptt window, in symbols",
	"noise_scale":          "scale β of the noise regularizer",
	"stage_noise":          "2il: weight noise of the second stage, percent of matrices (the regularizer's, if noise is higher)",
	"eval_refine":          "iterations per symbol when classifying (0: refine's K)",
	"clip":                 "the paper's bound on each weight update",
	"test_seed":            "seed of the test sets",
	"positives":            "training positives (0: the paper's 1987)",
	"negatives":            "training negatives (0: the paper's 2021)",
	"tests":                "test sets evaluated at the end (comma-separated)",
	"stage2_annealed":      "2il: the second stage's fixed rate is the one stage 1's annealing reached, not lr",
	"next_weight":          "weight of the next-symbol-set head (targets from the PDA; 0: off)",
	"lm_weight":            "weight of the language-model head (next symbol of members; 0: off)",
	"action_weight":        "nspda: weight of the action loss (the PDA's stack operations as targets; 0: off)",
	"neutral_weight":       "nspda, with restarts: weight of a prior pulling the action neurons towards the no-op on one input symbol a long start, each symbol in turn, none on starts 0, L+1, … and the probes (0: off)",
	"neutral_patience":     "with neutral_weight: a start with a neutral symbol ends after this many epochs without a better score of its own (0: patience, against every start so far)",
	"neutral_two_sided":    "with neutral_weight: the starts with a neutral symbol take the read's two-sided derivative (two_sided for those starts)",
	"polish":               "with patience: when no start ends with perfect weights, one more start from the best weights (the heads' weights 0), by SGD at the paper's stochastic rate from lr, ending after this many epochs without improvement or twice as many in all (0: off; the frozen recipes' last resort)",
	"final_starts":         "with patience: when the run's weights are still not perfect after its starts and the polish, up to this many more long starts, each holding a symbol at the no-op in turn (0: off)",
	"final_neutral_weight": "with neutral_weight and final_starts: the neutral prior's weight on the final starts (0: neutral_weight)",
	"probe_patience":       "with probes: the probes' patience",
	"own_patience":         "with restarts: a long start ends after patience epochs without a better score of its own, not of every start so far",
	"select_max":           "with patience: the select split's longest string (0: 40)",
	"edits":                "on a grammar: N members and N one-edit neighbours of members of lengths 1..21 beside the training set, and 200 + 200 of the select split's lengths beside the select set (0: off)",
	"action_rule":          "nspda on a grammar: program gives the net as many action neurons as the PDA's compiled program uses at its order, if more than one per symbol; empty: one per symbol, the paper's",
	"alphabet":             "with data: the alphabet in order (default: every symbol of the files, sorted)",
	"portfolio":            "with patience: train the starts independently, --workers at once; the first start in order that passes selection wins (another run than without it)",
	"start_epochs":         "with portfolio: a long or final start ends after this many epochs of its own, if its patience has not ended it (0: no bound)",
	"probe_epochs":         "with portfolio and probes: a probe ends after this many epochs of its own, if its patience has not ended it (0: no bound)",
	"finish":               "with portfolio: finish each start whose best score (training plus select error fraction) ends above 0 and at most this on the superposition stack, from its best weights (0: off)",
	"finish_rate":          "with finish: the finish's Adam rate",
	"finish_beta":          "with finish: the superposition stack's sharpness during the finish",
	"lock_step":            "nspda, bptt, batch > 1: train each minibatch in lock-step on the batched kernels (other read draws, so another run; docs/performance.md)",
}

// listSettings prints every setting's key, the default recipe's value and
// what it does: the answer to --opt help.
func listSettings(w io.Writer) error {
	def, err := experiment.Recipe("default")
	if err != nil {
		return err
	}
	flags := map[string]string{}
	newTrain().Flags().VisitAll(func(f *pflag.Flag) {
		if k := f.Annotations[settingKey]; len(k) == 1 {
			flags[k[0]] = "--" + f.Name
		}
	})
	fmt.Fprintln(w, "Settings of train: --opt KEY=VALUE, or KEY: VALUE under set: in a recipe file (docs/design.md, \"Recipe files\").")
	fmt.Fprintln(w, "KEY, the default recipe's value, and what it sets:")
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	for _, k := range experiment.SettingKeys() {
		v, _ := def.Get(k)
		b, _ := json.Marshal(v)
		about := settingHelp[k]
		if f, ok := flags[k]; ok {
			about = "as " + f
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", k, b, about)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, "Model options (e.g. stacks, hints, soft_stack, no_read_grad) are keys too: 'nspda models' lists each model's, with its defaults.")
	return err
}
