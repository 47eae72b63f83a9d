package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/model"
	"github.com/nspda/nspda/train"
)

func newTrain() *cobra.Command {
	cfg, _ := experiment.Recipe("default")
	pend := new(modelOpts)
	var (
		out, resume string
		recipe      string
		quiet       bool
	)
	cmd := &cobra.Command{
		Use:   "train [--grammar G] [--order 2|3] [--hints none|1|2] [--algo A] [--curriculum C] [--out DIR]",
		Short: "Train a model and evaluate it on the test sets",
		Long: `train trains an NSPDA (or, with --model, a baseline) on a grammar's training
split and evaluates it on test60, test480 and test960. DIR receives config.json,
metrics.jsonl (one line per epoch), timing.jsonl, checkpoint.json (after every
epoch, removed when the run finishes), model.json and summary.json. --resume DIR
continues a killed run from its last checkpoint with the configuration in its
config.json (other training flags are refused).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			if resume != "" {
				c, err := resumeConfig(cmd, resume)
				if err != nil {
					return err
				}
				cfg, out = c, resume
				if err := sayResume(w, resume, cfg); err != nil {
					return err
				}
			} else {
				if cmd.Flags().Changed("data") && !cmd.Flags().Changed("recipe") {
					recipe = "data"
				}
				c, p, err := applyRecipe(cmd, recipe)
				if err != nil {
					return err
				}
				cfg = c
				if err := checkTrainFlags(cmd, &cfg, p); err != nil {
					return err
				}
			}
			if out == "" {
				out = defaultRunDir(cfg)
			}
			if resume == "" {
				sayHoldOut(w, cfg)
			}
			var progress experiment.Progress
			done := func() {}
			if !quiet {
				progress, done = newProgress(w, cfg.EpochBudget())
			}
			sum, err := experiment.Train(cmd.Context(), cfg, out, resume != "", progress)
			done()
			if errors.Is(err, context.Canceled) {
				return fmt.Errorf("interrupted; continue with: nspda train --resume %s", out)
			}
			if err != nil {
				return err
			}
			state := "did not converge"
			if sum.Converged {
				state = fmt.Sprintf("converged after %d epochs (%d characters)", sum.Epochs, sum.Chars)
			}
			if sum.SelectedEpoch > 0 {
				state += fmt.Sprintf("; kept the weights of epoch %d", sum.SelectedEpoch)
			}
			if sum.WideFrom > 0 {
				first := sum.Config.FirstSize()
				if first == "paper" {
					first = "paper's"
				}
				state += fmt.Sprintf(" (the %s size's: no start of the %s size passed selection in epochs 1–%d, and the wide size trained after them)", sum.SizeRule, first, sum.WideFrom)
			}
			on := sum.Config.Grammar
			if sum.Config.Data != "" {
				on = sum.Config.Data
			}
			fmt.Fprintf(w, "%s on %s: %s; training error %.2f%%; %.1fs -> %s\n", sum.Config.Model, on, state, sum.TrainErrorPct, sum.WallSeconds, out)
			return printResults(cmd, sum.Sets, false)
		},
	}
	f := cmd.Flags()
	bindConfigFlags(f, &cfg, pend)
	f.StringVar(&recipe, "recipe", "default", "settings to start from: default (the measured best, docs/training.md), paper (the paper's protocol), data (no automaton: the copied label and the language-model head; the recipe of --data) or action (the default's targets and the PDA's stack operations as targets of the action neurons); other flags override them")
	f.StringVar(&out, "out", "", "run directory (default runs/MODEL-GRAMMAR-HASH)")
	f.StringVar(&resume, "resume", "", "continue the killed run in this directory")
	f.BoolVar(&quiet, "quiet", false, "no per-epoch output")
	return cmd
}

// bindConfigFlags binds the training flags that set a configuration to
// cfg's fields, with cfg's values as defaults; the model options (--opt
// KEY=VALUE and the option flags, optionFlags) are gathered in pend, to be
// set once the model is known (checkTrainFlags).
func bindConfigFlags(f *pflag.FlagSet, cfg *experiment.Config, pend *modelOpts) {
	f.StringVar(&cfg.Grammar, "grammar", cfg.Grammar, "grammar: a built-in name or a PDA .yaml file")
	f.StringVar(&cfg.Model, "model", cfg.Model, "model to train (see 'nspda models')")
	f.IntVar(&cfg.Hidden, "hidden", cfg.Hidden, "state or hidden units (default: the paper's rule for nspda, the model's default otherwise)")
	f.Var(&optList{pend}, "opt", "a model option KEY=VALUE (repeat; 'nspda models' lists each model's options and defaults)")
	for _, o := range optionFlags {
		v := &optFlag{o: o, pend: pend, text: o.show(cfg.Option(o.key))}
		fl := f.VarPF(v, o.flag, "", o.usage)
		if o.parse == nil {
			fl.NoOptDefVal = "true"
		}
	}
	f.StringVar(&cfg.Algo, "algo", cfg.Algo, "gradient estimator: "+train.EstimatorList()+" (default: the model's)")
	f.IntVar(&cfg.Window, "window", cfg.Window, "tbptt window, in symbols")
	f.StringVar(&cfg.Curriculum, "curriculum", cfg.Curriculum, "curriculum: standard, il or 2il")
	f.Float64Var(&cfg.Noise, "noise", cfg.Noise, "adaptive noise regularizer: percent of matrices perturbed (0: off)")
	f.Float64Var(&cfg.StageNoise, "stage-noise", cfg.StageNoise, "2il: weight noise of the second stage, percent of matrices (the regularizer's, if --noise is higher)")
	f.Float64Var(&cfg.NoiseScale, "noise-scale", cfg.NoiseScale, "scale β of the noise regularizer")
	f.IntVar(&cfg.Refine, "refine", cfg.Refine, "iterative refinement K")
	f.IntVar(&cfg.EvalRefine, "eval-refine", cfg.EvalRefine, "iterations per symbol when classifying (default: K)")
	f.Float64Var(&cfg.LR, "lr", cfg.LR, "initial learning rate")
	f.IntVar(&cfg.MaxEpochs, "max-epochs", cfg.MaxEpochs, "most epochs of a size's starts (each size's, with --size both); a polish (--polish) adds at most min(2×--polish, this) and the final starts (--final-starts) at most this many: the progress lines count to the run's most")
	f.BoolVar(&cfg.Stage2Annealed, "stage2-annealed", cfg.Stage2Annealed, "2il: the second stage's fixed rate is the one stage 1's annealing reached, not --lr")
	f.BoolVar(&cfg.KeepBest, "keep-best", cfg.KeepBest, "end with the weights of the epoch best on the whole validation set (default: the last epoch's, as Algorithm 1)")
	f.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of initialization and training")
	f.Uint64Var(&cfg.DataSeed, "data-seed", cfg.DataSeed, "seed of the training and validation data")
	f.StringVar(&cfg.Loss, "loss", cfg.Loss, "output loss: label (the paper's, every step), final (the end marker only) or viable (each prefix: can it still become a member? from the PDA)")
	f.Float64Var(&cfg.NextWeight, "next-weight", cfg.NextWeight, "weight of the next-symbol-set head (targets from the PDA; 0: off)")
	f.Float64Var(&cfg.LMWeight, "lm-weight", cfg.LMWeight, "weight of the language-model head (next symbol of members; 0: off)")
	f.Float64Var(&cfg.ActionWeight, "action-weight", cfg.ActionWeight, "nspda: weight of the action loss (the PDA's stack operations as targets; 0: off)")
	f.Float64Var(&cfg.NeutralWeight, "neutral-weight", cfg.NeutralWeight, "nspda, with --restarts: weight of a prior pulling the action neurons towards the no-op on one input symbol a long start, each symbol in turn, none on starts 0, L+1, … and the probes (needs no PDA; 0: off)")
	f.BoolVar(&cfg.NeutralTwoSided, "neutral-two-sided", cfg.NeutralTwoSided, "with --neutral-weight: the starts with a neutral symbol take the read's two-sided derivative (--two-sided for those starts)")
	f.IntVar(&cfg.NeutralPatience, "neutral-patience", cfg.NeutralPatience, "with --neutral-weight: a start with a neutral symbol ends after this many epochs without a better score of its own (0: --patience, against every start so far)")
	f.Float64Var(&cfg.EconomyWeight, "economy-weight", cfg.EconomyWeight, "nspda: weight of a prior pulling the action neurons towards the no-op where no PDA operation is a target (needs no PDA; 0: off)")
	f.StringVar(&cfg.Optimizer, "optimizer", cfg.Optimizer, "optimizer: sgd (the paper's) or adam")
	f.IntVar(&cfg.Batch, "batch", cfg.Batch, "strings per update (0: one)")
	f.Float64Var(&cfg.ClipNorm, "clip-norm", cfg.ClipNorm, "bound on each update's gradient norm (0: off)")
	f.Float64Var(&cfg.InitScale, "init-scale", cfg.InitScale, "factor on the model's initial weights (0: 1)")
	f.IntVar(&cfg.Patience, "patience", cfg.Patience, "train past convergence, keep the weights best on training + the select split (lengths 22 to --select-max), stop after this many epochs without improvement (0: stop at convergence)")
	f.IntVar(&cfg.Plateau, "plateau", cfg.Plateau, "with --patience: halve the rate and return to the best weights after this many epochs without improvement (0: off)")
	f.StringVar(&cfg.Data, "data", cfg.Data, "train on this JSONL file of labelled strings, with no grammar (data-only supervision; recipe data)")
	f.StringVar(&cfg.ValidData, "valid", cfg.ValidData, "with --data: the validation file")
	f.StringVar(&cfg.SelectData, "select", cfg.SelectData, "with --data: the file of longer strings to select weights on (--patience)")
	f.StringSliceVar(&cfg.TestData, "test", cfg.TestData, "with --data: test files (repeat or comma-separate); errors are reported per file and per length band")
	f.IntVar(&cfg.HoldOut, "hold-out", cfg.HoldOut, fmt.Sprintf("with --data and no --select: select weights on this percent of the training strings, the longest, held out of training (default %d; 0: no selection, one start)", defaultHoldOut))
	f.StringVar(&cfg.Alphabet, "alphabet", cfg.Alphabet, "with --data: the alphabet in order (default: every symbol of the files, sorted)")
	f.Float64Var(&cfg.FinalNeutralWeight, "final-neutral-weight", cfg.FinalNeutralWeight, "with --neutral-weight and --final-starts: the neutral prior's weight on the final starts (0: --neutral-weight)")
	f.IntVar(&cfg.FinalStarts, "final-starts", cfg.FinalStarts, "with --patience: when the run's weights are still not perfect after its starts (or --max-epochs) and the polish (of the wide size, with --size both), up to this many more long starts, each holding a symbol at the no-op in turn (0: off)")
	f.IntVar(&cfg.Restarts, "restarts", cfg.Restarts, "with --patience: start again from new weights up to this many times while the best weights are not perfect")
	f.IntVar(&cfg.Probes, "probes", cfg.Probes, "with --patience: short starts after the --restarts long ones (for a policy a start finds at once or never)")
	f.IntVar(&cfg.ProbePatience, "probe-patience", cfg.ProbePatience, "with --probes: the probes' patience")
	f.IntVar(&cfg.ProbeLong, "probe-long", cfg.ProbeLong, "with --probes: every Nth probe has the long starts' --patience (0: none)")
	f.IntVar(&cfg.Polish, "polish", cfg.Polish, "with --patience: when no start ends with perfect weights, one more start from the best weights (the heads' weights 0), by SGD at the paper's stochastic rate from --lr, ending after this many epochs without improvement or twice as many in all (0: off)")
	f.BoolVar(&cfg.OwnPatience, "own-patience", cfg.OwnPatience, "with --restarts: a long start ends after --patience epochs without a better score of its own, not of every start so far")
	f.IntVar(&cfg.SelectMax, "select-max", cfg.SelectMax, "with --patience: the select split's longest string (0: 40)")
	f.IntVar(&cfg.Edits, "edits", cfg.Edits, "on a grammar: add N members and N one-edit neighbours of members (one symbol inserted or deleted, at any length) of lengths 1..21 to the training set, and 200 + 200 of the select split's lengths to the select set; not the paper's: they show the lengths where the language has no member (0: off)")
	f.StringVar(&cfg.ActionRule, "action-rule", cfg.ActionRule, "nspda on a grammar: program gives the net as many action neurons as the PDA's compiled program uses at its order, if more than one per symbol (the default recipe's); empty: one per symbol, the paper's")
	f.StringVar(&cfg.SelectRule, "select-rule", cfg.SelectRule, "with --patience: rank epochs by training errors first, select errors on a tie (train-first), or by their sum (empty)")
	f.IntVar(&cfg.FirstPatience, "first-patience", cfg.FirstPatience, "with --restarts: the first start's patience (0: --patience); e.g. one long start, then short ones")
	f.StringVar(&cfg.RestartSchedule, "restart-schedule", cfg.RestartSchedule, "with --restarts: luby gives start r the patience --patience × luby(r+1) (1, 1, 2, 1, 1, 2, 4, …: many short starts and a few long ones); empty: every start --patience")
	f.StringVar(&cfg.Size, "size", cfg.Size, "nspda: the rule that draws J when --hidden is not given: paper (M + U(2,6) at third order, M + U(12,29) at second), wide (M + U(12,29) at both orders), small (M + U(2,6) at both orders: the action recipe's), or both (the small one, then, if no start passes selection, the wide one: the default and data recipes'; needs --patience; a recipe's both gives way to --hidden, and without --patience to small)")
	f.BoolVar(&cfg.LockStep, "lock-step", cfg.LockStep, "nspda, bptt, --batch > 1: train each minibatch in lock-step on the batched kernels (faster with GOEXPERIMENT=simd builds; other read draws, so another run; docs/performance.md)")
}

// applyRecipe returns the named recipe with every configuration flag the
// user gave applied on top (the flags were parsed into a config that began
// from the default recipe), and the model options they give.
func applyRecipe(cmd *cobra.Command, name string) (experiment.Config, *modelOpts, error) {
	pend := new(modelOpts)
	base, err := experiment.Recipe(name)
	if err != nil {
		return base, pend, usageError{err}
	}
	fs := pflag.NewFlagSet("recipe", pflag.ContinueOnError)
	bindConfigFlags(fs, &base, pend)
	var ferr error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		to := fs.Lookup(f.Name)
		switch v, ok := f.Value.(pflag.SliceValue); {
		case to == nil || ferr != nil:
		case ok:
			ferr = to.Value.(pflag.SliceValue).Replace(v.GetSlice())
		default:
			ferr = fs.Set(f.Name, f.Value.String())
		}
	})
	return base, pend, ferr
}

// displayFlags are the flags of train that change only what it prints; any
// other flag sets the configuration, which a resumed run takes from its
// config.json.
var displayFlags = map[string]bool{"resume": true, "quiet": true, "help": true}

// resumeConfig returns the configuration of the run in dir, refusing the
// training flags that --resume would otherwise ignore.
func resumeConfig(cmd *cobra.Command, dir string) (experiment.Config, error) {
	var given []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if !displayFlags[f.Name] {
			given = append(given, "--"+f.Name)
		}
	})
	if len(given) > 0 {
		return experiment.Config{}, usagef("--resume continues a run with its own config.json: drop %s", strings.Join(given, ", "))
	}
	return experiment.ReadConfig(dir)
}

// defaultHoldOut is the percent of the training strings train --data holds
// out for selection when there is no --select. On a^n b^n (seeds 1–3),
// no selection left 9% training error after 400 epochs on seed 1; the
// longest tenth held out learned it exactly in 5–10 s.
const defaultHoldOut = 10

// sayHoldOut says, before training, what a run on data without --select
// selects on, or that it selects on nothing.
func sayHoldOut(w io.Writer, cfg experiment.Config) {
	switch {
	case cfg.Data == "" || cfg.SelectData != "":
	case cfg.HoldOut > 0:
		fmt.Fprintf(w, "no --select: selecting weights on the longest %d%% of the training strings, held out of training; longer labelled strings (--select, e.g. from nspda generate --split select) usually select better\n", cfg.HoldOut)
	case cfg.Patience == 0:
		fmt.Fprintf(w, "no --select and --hold-out 0: one start of %d epochs, keeping its last weights, with nothing to select them on\n", cfg.MaxEpochs)
	}
}

// dataDefaults sets what a run on data files has in place of a grammar's:
// its own alphabet, tests and selection (the --select file or the held-out
// longest training strings), or, with neither, one start.
func dataDefaults(cfg *experiment.Config, changed func(string) bool) error {
	// No automaton: the data's own alphabet, tests and selection.
	if !changed("grammar") {
		cfg.Grammar = ""
	}
	cfg.Tests = nil
	if !changed("select-max") {
		cfg.SelectMax = 0 // the select strings are --select's
	}
	if !changed("edits") {
		cfg.Edits = 0 // the strings are the files'
	}
	if cfg.SelectData == "" && !changed("hold-out") && cfg.Patience > 0 {
		cfg.HoldOut = defaultHoldOut // the strings to select on
	}
	if cfg.SelectData == "" && !changed("patience") && cfg.HoldOut == 0 {
		cfg.Patience, cfg.Restarts = 0, 0
		if !changed("probes") {
			cfg.Probes = 0
		}
		if !changed("max-epochs") {
			cfg.MaxEpochs = 400 // the one start's budget before the recipe took the probes
		}
		// one start, on the digital stack (unless an option flag
		// below says otherwise)
		for _, k := range []string{"soft_stack", "soft_alternate"} {
			if cfg.Option(k) != nil {
				if err := cfg.Set(k, false); err != nil {
					return usageError{err}
				}
			}
		}
	}
	return nil
}

// checkTrainFlags completes cfg from the flags that need interpreting and
// refuses a configuration that cannot work or options that do not apply
// to the model (usage errors).
func checkTrainFlags(cmd *cobra.Command, cfg *experiment.Config, pend *modelOpts) error {
	changed := cmd.Flags().Changed
	spec, err := model.Lookup(cfg.Model)
	if err != nil {
		return usageError{err}
	}
	// The recipe's options that the model has (the order of the nnpda),
	// and the defaults of the others.
	*cfg = cfg.WithModel(cfg.Model)
	if cfg.Data != "" {
		if err := dataDefaults(cfg, changed); err != nil {
			return err
		}
	}
	if spec.Size == nil && !changed("size") {
		cfg.Size = ""
	}
	// A recipe's size rule "both" needs selection to choose between its two
	// sizes and no --hidden: --hidden gives J, and without selection the run
	// trains the first size, the small one.
	if cfg.Size == "both" && !changed("size") {
		switch {
		case cfg.Hidden != 0:
			cfg.Size = ""
		case cfg.Patience == 0:
			cfg.Size = "small"
		}
	}
	if err := pend.apply(cfg); err != nil {
		return err
	}
	// The default recipe's neutral-symbol starts need action neurons and a
	// run of several starts, and its two-sided derivative gives way to the
	// superposition stack and the read-gradient ablation, which replace it.
	// (giveWay turns off what needs the neutral weight.)
	if !changed("neutral-weight") && cfg.NeutralWeight > 0 && cfg.Model != "nspda" {
		cfg.NeutralWeight = 0
	}
	if err := giveWay(cfg, changed, pend); err != nil {
		return err
	}
	if !changed("neutral-two-sided") && cfg.NeutralTwoSided && (cfg.Option("soft_stack") == true || cfg.Option("no_read_grad") == true) {
		cfg.NeutralTwoSided = false
	}
	*cfg = cfg.Normalize()
	if err := cfg.Validate(); err != nil {
		return usageError{err}
	}
	return nil
}

// giveWay turns off the recipe's settings (never one a flag gave) that
// need a setting the configuration no longer has: --patience 0 takes the
// recipe's restarts, probes, polish and final starts with it,
// --probe-patience 0 its probes, --restarts 0
// its neutral-symbol starts, --neutral-weight 0 their patience. Each is
// turned off only where Validate would refuse it, so a configuration that
// validates is unchanged, and an error left names a flag the user gave.
// Later steps see the earlier ones' results (patience, then restarts,
// then the neutral weight).
func giveWay(cfg *experiment.Config, changed func(string) bool, pend *modelOpts) error {
	off := func(flag string, on bool, clear func()) {
		if on && !changed(flag) {
			clear()
		}
	}
	noPatience := cfg.Patience == 0
	off("restarts", noPatience && cfg.Restarts > 0, func() { cfg.Restarts = 0 })
	off("probes", (noPatience || cfg.ProbePatience < 1) && cfg.Probes > 0, func() { cfg.Probes = 0 })
	off("plateau", noPatience && cfg.Plateau > 0, func() { cfg.Plateau = 0 })
	off("polish", noPatience && cfg.Polish > 0, func() { cfg.Polish = 0 })
	off("final-starts", noPatience && cfg.FinalStarts > 0, func() { cfg.FinalStarts = 0 })
	off("select-max", noPatience && cfg.SelectMax != 0, func() { cfg.SelectMax = 0 })
	off("select-rule", noPatience && cfg.SelectRule != "", func() { cfg.SelectRule = "" })
	noRestarts := cfg.Restarts == 0
	off("own-patience", (noPatience || noRestarts) && cfg.OwnPatience, func() { cfg.OwnPatience = false })
	off("first-patience", noRestarts && cfg.FirstPatience > 0, func() { cfg.FirstPatience = 0 })
	off("restart-schedule", noRestarts && cfg.RestartSchedule != "", func() { cfg.RestartSchedule = "" })
	off("neutral-weight", (noPatience || noRestarts) && cfg.NeutralWeight > 0, func() { cfg.NeutralWeight = 0 })
	// The data recipe's alternating stacks need the superposition stack and
	// restarts.
	if cfg.Option("soft_alternate") == true && (noRestarts || cfg.Option("soft_stack") != true) && !pend.gives("soft_alternate") {
		if err := cfg.Set("soft_alternate", false); err != nil {
			return usageError{err}
		}
	}
	noNeutral := cfg.NeutralWeight == 0
	off("neutral-patience", noNeutral && cfg.NeutralPatience > 0, func() { cfg.NeutralPatience = 0 })
	off("neutral-two-sided", noNeutral && cfg.NeutralTwoSided, func() { cfg.NeutralTwoSided = false })
	off("final-neutral-weight", (noNeutral || cfg.FinalStarts == 0) && cfg.FinalNeutralWeight > 0, func() { cfg.FinalNeutralWeight = 0 })
	return nil
}

// newProgress shows a progress bar when w is a terminal, and prints one
// plain line per epoch otherwise (cluster logs, pipes).
// The returned done ends the bar's line.
func newProgress(w io.Writer, maxEpochs int) (p experiment.Progress, done func()) {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		bar := progressbar.NewOptions(maxEpochs, progressbar.OptionSetWriter(f),
			progressbar.OptionSetWidth(30), progressbar.OptionShowCount())
		started := false
		return func(m train.Metrics, _ float64) {
				started = true
				bar.Describe(fmt.Sprintf("train %6.2f%%  valid %6.2f%%  loss %7.3f", m.TrainAcc, m.ValidAcc, m.Loss))
				bar.Set(m.Epoch)
			}, func() {
				if started {
					fmt.Fprintln(f)
				}
			}
	}
	return func(m train.Metrics, seconds float64) {
		sel := ""
		if m.SelectAcc != nil {
			sel = fmt.Sprintf("  select %6.2f%%", *m.SelectAcc)
		}
		fmt.Fprintf(w, "epoch %3d/%d  stage %d  len<=%-2d  loss %8.3f  train %6.2f%%  valid %6.2f%%%s  lr %.4g  chars %d  %.2fs\n",
			m.Epoch, maxEpochs, m.Stage, m.MaxLen, m.Loss, m.TrainAcc, m.ValidAcc, sel, m.LR, m.Chars, seconds)
	}, func() {}
}

// sayResume tells what --resume will do with the run in dir: nothing for a
// finished run, else the epoch it continues from and, for a PDA file, that
// it trains on the run's own copy of the spec; for data files, where it
// reads them from.
func sayResume(w io.Writer, dir string, cfg experiment.Config) error {
	st, err := experiment.Status(dir)
	if err != nil {
		return err
	}
	switch {
	case st.Finished:
		fmt.Fprintf(w, "%s is finished; nothing to resume (its results follow)\n", dir)
		return nil
	case st.Epoch == 0:
		fmt.Fprintf(w, "resuming %s: no epoch was finished, starting from the beginning\n", dir)
	case st.WideFrom > 0:
		// The wide size's epochs include its polish and final starts, so
		// they are not counted against --max-epochs alone.
		fmt.Fprintf(w, "resuming %s after epoch %d of %d: the wide size's epoch %d, after the %s size's %d\n", dir, st.Epoch, cfg.EpochBudget(), st.Epoch-st.WideFrom, cfg.FirstSize(), st.WideFrom)
	default:
		fmt.Fprintf(w, "resuming %s after epoch %d of %d\n", dir, st.Epoch, cfg.EpochBudget())
	}
	if st.Grammar != "" {
		fmt.Fprintf(w, "grammar: %s, the copy of %s made when the run started\n", st.Grammar, cfg.Grammar)
	}
	if st.DataDir != "" {
		fmt.Fprintf(w, "data: the run's files, relative paths read from %s, each checked unchanged since the run started\n", st.DataDir)
	}
	return nil
}

// defaultRunDir is runs/MODEL-GRAMMAR-KEY, GRAMMAR being a built-in name or
// a spec file's base name without extension, reduced to letters, digits,
// '.', '-' and '_' (never a path, never "..").
func defaultRunDir(cfg experiment.Config) string {
	name := cfg.Grammar
	if cfg.Data != "" {
		name = cfg.Data
	}
	if base := filepath.Base(name); base != name || strings.ContainsAny(name, `/\`) || filepath.Ext(name) != "" {
		name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	name = strings.Map(func(r rune) rune {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.') {
			return r
		}
		return '_'
	}, name)
	if strings.Trim(name, ".") == "" {
		name = "spec"
	}
	return filepath.Join("runs", fmt.Sprintf("%s-%s-%s", cfg.Model, name, cfg.Key()))
}
