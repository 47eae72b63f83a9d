package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/extract"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/internal/atomicfile"
	"github.com/nspda/nspda/train"
)

// inferFlags are the flags of infer.
type inferFlags struct {
	data, valid, sel string
	tests            []string
	out, dot, report string
	dir              string
	order            int
	seed             uint64
	quiet            bool
	changed          func(string) bool
	stdout, stderr   io.Writer
}

func newInfer() *cobra.Command {
	f := &inferFlags{}
	cmd := &cobra.Command{
		Use:   "infer --data TRAIN.jsonl [--valid V.jsonl] [--select S.jsonl] [--test T.jsonl ...] --out LANG.yaml [--order 2|3] [--seed N] [--dot FILE.dot|FILE.svg] [--report FILE.json] [--dir RUNDIR]",
		Short: "Learn a PDA from labelled strings: train, extract, compare",
		Long: `infer learns a language from labelled strings alone and writes the PDA it
found. It trains an NSPDA with the data recipe, exactly as 'nspda train --data'
with the same files, order and seed (the run directory --dir is a normal run
directory; run the same infer again to resume it after an interrupt, or to
reuse it when finished); then extracts the automaton the network implements
('nspda extract'), checks it against the network on every string up to length
10, and writes it to --out as a PDA file that program, eval, classify and
generate read.

It scores the network and the PDA on every data file given and keeps the
better on the selection strings (the --select file, else the training strings
train --data holds out); ties go to the PDA, which is the network's language
written as an automaton. The table gives each one's errors per file and the
shortest strings on which the label, the network and the PDA do not all agree.
When the network is better, --out is still written, and infer says where the
network's model.json is. Last, it counts the near misses: the strings one edit
from a member of the training file that no file trained or selected on labels,
and those of them the PDA accepts (the shortest are listed): the data do not
decide them, and labelling some is what tells the PDA from the language.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.changed = cmd.Flags().Changed
			f.stdout, f.stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			return f.run(cmd.Context())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.data, "data", "", "the training strings: a JSONL file of {\"string\": ..., \"label\": 0|1}")
	fl.StringVar(&f.valid, "valid", "", "a validation file, scored every epoch (as train --valid) and in the table")
	fl.StringVar(&f.sel, "select", "", "longer labelled strings to select weights on and to choose between network and PDA (default: the longest 10% of --data, held out)")
	fl.StringSliceVar(&f.tests, "test", nil, "test files (repeat or comma-separate): reported, never trained or selected on")
	fl.StringVar(&f.out, "out", "", "the PDA file to write (YAML)")
	fl.IntVar(&f.order, "order", 3, "tensor order of the NSPDA, 2 (M1) or 3 (M2)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of initialization and training")
	fl.StringVar(&f.dot, "dot", "", "draw the PDA: FILE.dot (and FILE.svg beside it when Graphviz's dot is installed) or FILE.svg (needs Graphviz)")
	fl.StringVar(&f.report, "report", "", "write the JSON report to `FILE`")
	fl.StringVar(&f.dir, "dir", "", "run directory of the training (default runs/nspda-DATA-KEY, as train's)")
	fl.BoolVar(&f.quiet, "quiet", false, "no per-epoch output")
	return cmd
}

// check refuses a command line infer cannot run.
func (f *inferFlags) check() error {
	switch {
	case f.data == "":
		return usagef("--data is required: the labelled training strings")
	case f.out == "":
		return usagef("--out is required: the PDA file to write")
	case f.order != 2 && f.order != 3:
		return usagef("--order must be 2 or 3, not %d", f.order)
	}
	switch ext := strings.ToLower(filepath.Ext(f.dot)); {
	case f.dot == "" || ext == ".dot":
	case ext == ".svg":
		if _, err := exec.LookPath("dot"); err != nil {
			return fmt.Errorf("--dot %s: drawing an SVG needs Graphviz's dot on PATH (e.g. apt-get install graphviz); or give FILE.dot", f.dot)
		}
	default:
		return usagef("--dot %s: want FILE.dot or FILE.svg", f.dot)
	}
	return nil
}

// config is the configuration train --data would run with the same files,
// order and seed: the same settings through experiment.Build.
func (f *inferFlags) config() (experiment.Config, error) {
	set := []experiment.Setting{{Key: "data", Value: f.data, Name: "--data"}}
	add := func(flag, key string, v any) {
		if f.changed(flag) {
			set = append(set, experiment.Setting{Key: key, Value: v, Name: "--" + flag})
		}
	}
	add("order", "order", f.order)
	add("seed", "seed", f.seed)
	add("select", "select_data", f.sel)
	add("test", "test_data", f.tests)
	add("valid", "valid_data", f.valid)
	cfg, err := experiment.Build("", set)
	if err != nil {
		return cfg, usageError{err}
	}
	return cfg, nil
}

// trainLine is the train command that makes the same run as infer.
func (f *inferFlags) trainLine(dir string) string {
	args := []string{"nspda train --data", f.data}
	if f.valid != "" {
		args = append(args, "--valid", f.valid)
	}
	if f.sel != "" {
		args = append(args, "--select", f.sel)
	}
	for _, t := range f.tests {
		args = append(args, "--test", t)
	}
	if f.changed("order") {
		args = append(args, "--order", fmt.Sprint(f.order))
	}
	if f.changed("seed") {
		args = append(args, "--seed", fmt.Sprint(f.seed))
	}
	return strings.Join(append(args, "--out", dir), " ")
}

func (f *inferFlags) run(ctx context.Context) error {
	if err := f.check(); err != nil {
		return err
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	dir := f.dir
	if dir == "" {
		dir = defaultRunDir(cfg)
	}
	resume := sameRun(dir, cfg)
	sum, err := f.train(ctx, cfg, dir, resume)
	if err != nil {
		return err
	}
	fmt.Fprintln(f.stdout, trainOutcome(sum, dir))
	rep, err := inferFrom(cfg, sum, dir, f.out)
	if err != nil {
		return err
	}
	if err := rep.write(f.stdout, f.report); err != nil {
		return err
	}
	if rep.pda == nil {
		return fmt.Errorf("cannot extract a PDA from %s: %s; no %s was written", rep.Model, rep.Extraction.Message, f.out)
	}
	if f.dot != "" {
		return drawInferred(f.stdout, rep.pda, f.dot)
	}
	return nil
}

// sparseWarning returns the warning that cfg's training data is sparse
// (experiment.SparseData), or "". Data it cannot read get no warning:
// training refuses them with the error.
func sparseWarning(cfg experiment.Config) string {
	s, err := experiment.SparseData(cfg)
	if err != nil || s == nil {
		return ""
	}
	return s.Warning()
}

// warnFirst returns progress that first writes msg to w at the first epoch,
// when training has started: a run refused before it gets only its error.
func warnFirst(w io.Writer, msg string, progress experiment.Progress) experiment.Progress {
	if msg == "" {
		return progress
	}
	return func(m train.Metrics, seconds float64) {
		if msg != "" {
			fmt.Fprint(w, msg)
			msg = ""
		}
		if progress != nil {
			progress(m, seconds)
		}
	}
}

// sameRun reports whether dir holds a run of cfg (finished or not), which
// infer resumes instead of training anew.
func sameRun(dir string, cfg experiment.Config) bool {
	old, err := experiment.ReadConfig(dir)
	return err == nil && old.Key() == cfg.Key()
}

// train runs cfg into dir, as train --data does, or resumes the run there.
func (f *inferFlags) train(ctx context.Context, cfg experiment.Config, dir string, resume bool) (*experiment.Summary, error) {
	w := f.stdout
	if resume {
		if err := sayResume(w, dir, cfg); err != nil {
			return nil, err
		}
	} else {
		fmt.Fprintf(w, "training: the data recipe, as %s\n", f.trainLine(dir))
		sayHoldOut(w, cfg)
	}
	var progress experiment.Progress
	done := func() {}
	if !f.quiet {
		progress, done = newProgress(w, cfg.EpochBudget())
	}
	if !resume {
		progress = warnFirst(f.stderr, sparseWarning(cfg), progress)
	}
	sum, err := experiment.Train(ctx, cfg, dir, resume, progress)
	done()
	if errors.Is(err, context.Canceled) {
		return nil, fmt.Errorf("interrupted; the same nspda infer command resumes the run in %s", dir)
	}
	return sum, err
}

// drawInferred writes the PDA's drawing: DOT (and SVG beside it with
// Graphviz), or SVG alone for a .svg path.
func drawInferred(w io.Writer, p *grammar.PDA, path string) error {
	if !strings.EqualFold(filepath.Ext(path), ".svg") {
		return writeDot(w, p, path)
	}
	src, err := extract.Dot(p)
	if err != nil {
		return err
	}
	svg, ok, err := extract.SVG(src)
	switch {
	case !ok:
		return fmt.Errorf("--dot %s: Graphviz's dot is not installed (e.g. apt-get install graphviz); or give FILE.dot", path)
	case err != nil:
		return err
	}
	if err := atomicfile.WriteFile(path, svg); err != nil {
		return err
	}
	fmt.Fprintf(w, "drawing -> %s\n", path)
	return nil
}
