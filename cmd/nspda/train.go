package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/train"
)

func newTrain() *cobra.Command {
	cmd, _ := trainCommand()
	return cmd
}

// trainFlags are the flags of train: cfg holds those that give a setting.
type trainFlags struct {
	cfg         experiment.Config
	opts        optList
	out, resume string
	recipe      string
	order       int
	quiet       bool
}

// config is the configuration the flags of cmd make.
func (tf *trainFlags) config(cmd *cobra.Command) (experiment.Config, error) {
	return trainConfig(cmd, tf.recipe, trainSettings(cmd, tf.cfg, tf.order, &tf.opts))
}

// trainCommand is train and its flags.
func trainCommand() (*cobra.Command, *trainFlags) {
	tf := &trainFlags{}
	tf.cfg, _ = experiment.Recipe("default")
	cmd := &cobra.Command{
		Use:   "train [--grammar G] [--order 2|3] [--recipe NAME|FILE.yaml] [--opt KEY=VALUE] [--out DIR]",
		Short: "Train a model and evaluate it on the test sets",
		Long: `train trains an NSPDA (or, with --model, a baseline) on a grammar's training
split and evaluates it on test60, test480 and test960. DIR receives config.json,
metrics.jsonl (one line per epoch), timing.jsonl, checkpoint.json (after every
epoch, removed when the run finishes), model.json and summary.json. --resume DIR
continues a killed run from its last checkpoint with the configuration in its
config.json (other training flags are refused).

A run starts from a recipe (--recipe) and puts over it the settings the flags
give, and those of --opt KEY=VALUE: every setting of config.json and every model
option has a KEY ('nspda train --opt help' lists them). A recipe file
(--recipe FILE.yaml) names a recipe and settings over it, by the same keys:

  base: default
  set:
    finish: 0
    edits: 0

The flags and --opt go over the file's settings. A recipe's setting that
needs one the run turns off gives way unless given too (patience 0 takes the
restarts and probes with it).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			if tf.opts.help {
				return listSettings(w)
			}
			var cfg experiment.Config
			var err error
			if tf.resume != "" {
				if cfg, err = resumeConfig(cmd, tf.resume); err != nil {
					return err
				}
				cfg.Workers = tf.cfg.Workers
				tf.out = tf.resume
				if err := sayResume(w, tf.resume, cfg); err != nil {
					return err
				}
			} else if cfg, err = tf.config(cmd); err != nil {
				return err
			}
			if tf.out == "" {
				tf.out = defaultRunDir(cfg)
			}
			if tf.resume == "" {
				sayHoldOut(w, cfg)
			}
			var progress experiment.Progress
			done := func() {}
			if !tf.quiet {
				progress, done = newProgress(w, cfg.EpochBudget())
			}
			if tf.resume == "" && cfg.Data != "" {
				progress = warnFirst(cmd.ErrOrStderr(), sparseWarning(cfg), progress)
			}
			sum, err := experiment.Train(cmd.Context(), cfg, tf.out, tf.resume != "", progress)
			done()
			if errors.Is(err, context.Canceled) {
				return fmt.Errorf("interrupted; continue with: nspda train --resume %s", tf.out)
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(w, trainOutcome(sum, tf.out))
			return printResults(cmd, sum.Sets, false)
		},
	}
	f := cmd.Flags()
	bindConfigFlags(f, &tf.cfg)
	f.IntVar(&tf.order, "order", optionInt(tf.cfg, "order"), "tensor order of nspda, 2 (M1) or 3 (M2), and of the nnpda controller (the model option order)")
	f.Var(&tf.opts, "opt", "a setting or model option KEY=VALUE over the recipe's, by its config.json key (repeat); 'nspda train --opt help' lists the settings, 'nspda models' each model's options")
	f.StringVar(&tf.recipe, "recipe", "default", "settings to start from: default (the measured best, docs/training.md), paper (the paper's protocol), data (no automaton: the copied label and the language-model head; the recipe of --data), action (the default's targets and the PDA's stack operations as targets of the action neurons), or a recipe file FILE.yaml (base: NAME, set: {KEY: VALUE, ...}; docs/design.md, \"Recipe files\"); other flags override them")
	f.StringVar(&tf.out, "out", "", "run directory (default runs/MODEL-GRAMMAR-HASH)")
	f.StringVar(&tf.resume, "resume", "", "continue the killed run in this directory")
	f.BoolVar(&tf.quiet, "quiet", false, "no per-epoch output")
	group(f, "model", "model", "order", "hidden", "size", "opt")
	group(f, "data", "grammar", "data", "valid", "select", "test", "hold-out", "data-seed")
	group(f, "recipe", "recipe", "curriculum", "loss", "patience", "restarts", "probes", "noise", "refine", "keep-best")
	group(f, "optimizer", "optimizer", "lr", "batch", "clip-norm", "algo")
	group(f, "run", "seed", "max-epochs", "workers", "out", "resume", "quiet")
	groupedUsage(cmd, "model", "data", "recipe", "optimizer", "run")
	return cmd, tf
}

// trainOutcome is the line train prints when a run ends.
func trainOutcome(sum *experiment.Summary, out string) string {
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
	return fmt.Sprintf("%s on %s: %s; training error %.2f%%; %.1fs -> %s", sum.Config.Model, on, state, sum.TrainErrorPct, sum.WallSeconds, out)
}

// optionInt is the model option key of cfg as an int (0 if it has none).
func optionInt(cfg experiment.Config, key string) int {
	f, _ := cfg.Option(key).(float64)
	return int(f)
}

// settingKey is the annotation of a flag that gives a configuration
// setting: its config.json key.
const settingKey = "setting"

// bindConfigFlags binds the training flags that give a configuration
// setting to cfg's fields, with cfg's values as defaults, each annotated
// with the setting's key (trainSettings). The other settings, those that
// need another setting to mean anything and the phases' patiences and
// weights, are set by --opt KEY=VALUE or a recipe file.
func bindConfigFlags(f *pflag.FlagSet, cfg *experiment.Config) {
	f.StringVar(&cfg.Grammar, "grammar", cfg.Grammar, "grammar: a built-in name or a PDA .yaml file")
	f.StringVar(&cfg.Model, "model", cfg.Model, "model to train (see 'nspda models')")
	f.IntVar(&cfg.Hidden, "hidden", cfg.Hidden, "state or hidden units (default: the paper's rule for nspda, the model's default otherwise)")
	f.StringVar(&cfg.Size, "size", cfg.Size, "nspda: the rule that draws J when --hidden is not given: paper (M + U(2,6) at third order, M + U(12,29) at second), wide (M + U(12,29) at both orders), small (M + U(2,6) at both orders: the action recipe's), or both (the small one, then, if no start passes selection, the wide one: the default and data recipes'; needs --patience; a recipe's both gives way to --hidden, and without --patience to small)")
	f.StringVar(&cfg.Data, "data", cfg.Data, "train on this JSONL file of labelled strings, with no grammar (data-only supervision; recipe data)")
	f.StringVar(&cfg.ValidData, "valid", cfg.ValidData, "with --data: the validation file")
	f.StringVar(&cfg.SelectData, "select", cfg.SelectData, "with --data: the file of longer strings to select weights on (--patience)")
	f.StringSliceVar(&cfg.TestData, "test", cfg.TestData, "with --data: test files (repeat or comma-separate); errors are reported per file and per length band")
	f.IntVar(&cfg.HoldOut, "hold-out", cfg.HoldOut, fmt.Sprintf("with --data and no --select: select weights on this percent of the training strings, the longest, held out of training (default %d; 0: no selection, one start)", experiment.DefaultHoldOut))
	f.Uint64Var(&cfg.DataSeed, "data-seed", cfg.DataSeed, "seed of the training and validation data")
	f.StringVar(&cfg.Curriculum, "curriculum", cfg.Curriculum, "curriculum: standard, il or 2il")
	f.StringVar(&cfg.Loss, "loss", cfg.Loss, "output loss: label (the paper's, every step), final (the end marker only) or viable (each prefix: can it still become a member? from the PDA)")
	f.IntVar(&cfg.Patience, "patience", cfg.Patience, "train past convergence, keep the weights best on training + the select split, stop after this many epochs without improvement (0: stop at convergence; the recipe's restarts, probes, polish and final starts give way)")
	f.IntVar(&cfg.Restarts, "restarts", cfg.Restarts, "with --patience: start again from new weights up to this many times while the best weights are not perfect")
	f.IntVar(&cfg.Probes, "probes", cfg.Probes, "with --patience: short starts after the --restarts long ones (for a policy a start finds at once or never; their patience: --opt probe_patience=N)")
	f.Float64Var(&cfg.Noise, "noise", cfg.Noise, "adaptive noise regularizer: percent of matrices perturbed (0: off)")
	f.IntVar(&cfg.Refine, "refine", cfg.Refine, "iterative refinement K")
	f.BoolVar(&cfg.KeepBest, "keep-best", cfg.KeepBest, "end with the weights of the epoch best on the whole validation set (default: the last epoch's, as Algorithm 1)")
	f.StringVar(&cfg.Optimizer, "optimizer", cfg.Optimizer, "optimizer: sgd (the paper's) or adam")
	f.Float64Var(&cfg.LR, "lr", cfg.LR, "initial learning rate")
	f.IntVar(&cfg.Batch, "batch", cfg.Batch, "strings per update (0: one)")
	f.Float64Var(&cfg.ClipNorm, "clip-norm", cfg.ClipNorm, "bound on each update's gradient norm (0: off)")
	f.StringVar(&cfg.Algo, "algo", cfg.Algo, "gradient estimator: "+train.EstimatorList()+" (default: the model's)")
	f.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of initialization and training")
	f.IntVar(&cfg.Workers, "workers", cfg.Workers, "with --opt portfolio=true: starts trained at once (0: one per core); the run's files are the same for every value, so --resume takes it too")
	f.IntVar(&cfg.MaxEpochs, "max-epochs", cfg.MaxEpochs, "most epochs of a size's starts (each size's, with --size both); a polish (--opt polish=P) adds at most min(2P, this) and the final starts at most this many: the progress lines count to the run's most")
	f.VisitAll(func(fl *pflag.Flag) {
		key := strings.ReplaceAll(fl.Name, "-", "_")
		if k, ok := flagSettings[fl.Name]; ok {
			key = k
		}
		_ = f.SetAnnotation(fl.Name, settingKey, []string{key})
	})
}

// flagSettings are the keys of the settings of flags not named after them.
var flagSettings = map[string]string{"valid": "valid_data", "select": "select_data", "test": "test_data"}

// trainSettings are the settings the flags give, in the order of their
// names, --opt's in its place: the old flags' order, in which the last of
// two that set one model option won. --order gives that option.
func trainSettings(cmd *cobra.Command, cfg experiment.Config, order int, opts *optList) []experiment.Setting {
	var set []experiment.Setting
	cmd.Flags().Visit(func(f *pflag.Flag) {
		switch key := f.Annotations[settingKey]; {
		case f.Name == "opt":
			set = append(set, opts.list...)
		case f.Name == "order":
			set = append(set, experiment.Setting{Key: "order", Value: order, Name: "--order"})
		case len(key) == 1:
			v, _ := cfg.Get(key[0])
			set = append(set, experiment.Setting{Key: key[0], Value: v, Name: "--" + f.Name})
		}
	})
	return set
}

// trainConfig is the configuration of the recipe (a name, or a recipe
// file's base) with the recipe file's settings and then set over it. A
// mistake in the recipe file is bad input; one in the configuration the
// settings make, a usage error.
func trainConfig(cmd *cobra.Command, recipe string, set []experiment.Setting) (experiment.Config, error) {
	name := ""
	switch ext := filepath.Ext(recipe); {
	case ext == ".yaml" || ext == ".yml":
		base, fileSet, err := experiment.ReadRecipeFile(recipe)
		if err != nil {
			return experiment.Config{}, err
		}
		name, set = base, append(fileSet, set...)
	case cmd.Flags().Changed("recipe"):
		if !experiment.IsRecipe(recipe) {
			return experiment.Config{}, usagef("--recipe %q: want %s, or a recipe file FILE.yaml", recipe, strings.Join(experiment.Recipes(), ", "))
		}
		name = recipe
	}
	cfg, err := experiment.Build(name, set)
	if err != nil {
		return cfg, usageError{errors.New(asKeys(cmd.Flags(), err.Error()))}
	}
	return cfg, nil
}

var flagName = regexp.MustCompile(`--([a-z][a-z0-9-]*)`)

// asKeys spells each --flag of msg that train does not have, a setting's
// older name, as the setting's key, as --opt and recipe files give it.
func asKeys(f *pflag.FlagSet, msg string) string {
	return flagName.ReplaceAllStringFunc(msg, func(m string) string {
		name := strings.TrimPrefix(m, "--")
		if key := strings.ReplaceAll(name, "-", "_"); f.Lookup(name) == nil && experiment.IsSetting(key) {
			return key
		}
		return m
	})
}

// displayFlags are the flags of train that change only what it prints or
// how fast it runs; any other flag sets the configuration, which a resumed
// run takes from its config.json.
var displayFlags = map[string]bool{"resume": true, "quiet": true, "help": true, "workers": true}

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
