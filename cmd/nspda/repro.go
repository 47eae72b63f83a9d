package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/nspda/nspda/internal/atomicfile"
	"github.com/nspda/nspda/tables"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/internal/limits"
)

// reproFlags are the settings of `nspda repro`.
type reproFlags struct {
	seeds, workers      int
	seedsGiven          bool // --seeds (or --quick): every table's; else each its own (tables.DefaultSeeds)
	quick, tablesOnly   bool
	noFigures, keepBest bool
	store, out          string
	plan, emitSlurm     string
	binary              string
	slurmOptions        []string
	slurmParallel       int
}

func newRepro() *cobra.Command {
	var f reproFlags
	cmd := &cobra.Command{
		Use:   "repro TABLE|all [--seeds N] [--workers N] [--quick] [--store DIR] [--out DIR] [--tables-only | --plan FILE | --emit-slurm DIR]",
		Short: "Reproduce one of the paper's tables: train what the store lacks, write tables and figures",
		Long: `repro runs the grid of one of the paper's tables (or all of them) into a
results store and writes the table, in Markdown and CSV, with our mean, standard
deviation and 95% confidence interval over seeds beside the paper's number, and
figures (learning curves, test error by model and language, error against string
length) in PNG and SVG, and an index page linking them all.

Tables: hints (Table 1), incremental (Table 2), noise (Table 3), comparison
(Table 4 and its appendix version), programmed (appendix: rule insertion, no
training), algorithms (appendix: BPTT, TBPTT, RTRL, UORO); and ours: learning
(what makes the NSPDA learn: the paper's protocol, the default recipe, data
only, and the default with the action loss, on every language), fair
(every model of Table 4 under one modern recipe, its learning rate and size
searched per model and language on the training and select sets),
ablation (the default recipe, and the default without each of its parts:
runs exact, time to exact), and inference (the data recipe, from labelled
strings alone, on the five languages and on the PDA files of
tables/languages/: networks exact to 960, and the PDAs extracted from them
compared with the language on every string up to length 10 and on the
test sets; run it from the repository's root, where those paths lead).

fair runs in two phases: a search (trials per model and language, stored
runs like any other), then five seeds of each selected setting. repro fair
trains both; --plan and --emit-slurm write the trials still unfinished and
the seeds of the searches already finished, so run them again once the
trials are done to plan the second phase.

The store (--store, default results/) holds one directory per run, named by the
hash of its full configuration: finished runs are skipped, killed ones resumed
from their checkpoints. --quick uses one seed and tiny budgets (3 epochs, 100 +
100 training strings, test60 only) to check the pipeline in seconds.

--plan FILE writes the runs as JSON lines for 'nspda run --plan FILE --index N';
--emit-slurm DIR writes that plan and an sbatch job-array script over it;
--tables-only writes tables and figures from the store without training.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("repro needs one table: %s or all", strings.Join(tables.Names(), ", "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(cmd); err != nil {
				return err
			}
			ts, err := reproTables(args[0], f.options)
			if err != nil {
				return usageError{err}
			}
			w := cmd.OutOrStdout()
			store := experiment.Store{Dir: f.store}
			switch {
			case f.plan != "" || f.emitSlurm != "":
				// A two-phase table plans what its search's results
				// allow: its trials until they are finished, then the
				// seeds of the selected settings.
				if ts, err = resolveTables(ts, store); err != nil {
					return err
				}
				if f.plan != "" {
					err = writePlan(w, f.plan, ts)
				} else {
					err = emitSlurm(w, args[0], ts, f)
				}
				if err == nil {
					notePending(w, args[0], ts)
				}
				return err
			}
			if !f.tablesOnly {
				if err := runPlan(cmd.Context(), w, store, tables.NewPlan(ts...), f.workers); err != nil {
					return err
				}
				// Phase 2 of the two-phase tables: the runs their
				// searches (trained above) select.
				var staged []*tables.Table
				for _, t := range ts {
					if t.Staged() {
						staged = append(staged, t)
					}
				}
				if staged, err = resolveTables(staged, store); err != nil {
					return err
				}
				if err := runPlan(cmd.Context(), w, store, tables.NewPlan(staged...), f.workers); err != nil {
					return err
				}
			}
			if ts, err = resolveTables(ts, store); err != nil {
				return err
			}
			for _, t := range ts {
				prov := tables.NewProvenance(commandLine(cmd, args), f.options(t.Name))
				files, err := tables.WriteReport(cmd.Context(), t, store, tables.ReportOptions{
					Dir: f.out, Provenance: prov, Workers: f.workers, NoFigures: f.noFigures})
				if err != nil {
					return fmt.Errorf("%s: %v", t.Name, err)
				}
				fmt.Fprintf(w, "%s: wrote %s in %s\n", t.Name, strings.Join(files, ", "), f.out)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.seeds, "seeds", 5, "runs per cell, with Config.Seed = 1..N (default 5, 3 for the ablation; 1 with --quick)")
	fl.IntVar(&f.workers, "workers", runtime.NumCPU(), "runs (and evaluations) at once")
	fl.BoolVar(&f.quick, "quick", false, "one seed and tiny budgets: a smoke test of the pipeline, not a measurement")
	fl.StringVar(&f.store, "store", "results", "results store: one directory per run")
	fl.StringVar(&f.out, "out", "", "directory of tables, figures and index.md (default tables, or tables-quick with --quick)")
	fl.BoolVar(&f.keepBest, "keep-best", false, "every run ends with its best-validation weights (other keys; write to another --out)")
	fl.BoolVar(&f.tablesOnly, "tables-only", false, "write tables and figures from the store; train nothing")
	fl.BoolVar(&f.noFigures, "no-figures", false, "write the tables only, no figures")
	fl.StringVar(&f.plan, "plan", "", "write the runs to this JSON-lines file and stop")
	fl.StringVar(&f.emitSlurm, "emit-slurm", "", "write a plan and an sbatch job-array script into this directory and stop")
	fl.StringVar(&f.binary, "binary", "", "the nspda executable the Slurm tasks run (default: this one)")
	fl.StringArrayVar(&f.slurmOptions, "slurm-option", nil, `extra #SBATCH option, e.g. "--partition=cpu" (repeatable)`)
	fl.IntVar(&f.slurmParallel, "slurm-parallel", 0, "most array tasks running at once (0: no limit)")
	return cmd
}

// options are the grid options table name is made with: its own number of
// seeds unless --seeds or --quick gives one.
func (f *reproFlags) options(name string) tables.GridOptions {
	opt := tables.GridOptions{Seeds: f.seeds, Quick: f.quick, KeepBest: f.keepBest}
	if !f.seedsGiven {
		opt.Seeds = tables.DefaultSeeds(name)
	}
	return opt
}

// check validates the flags and fills in defaults that depend on others.
func (f *reproFlags) check(cmd *cobra.Command) error {
	f.seedsGiven = cmd.Flags().Changed("seeds") || f.quick
	if f.quick && !cmd.Flags().Changed("seeds") {
		f.seeds = 1
	}
	switch {
	case f.seeds < 1:
		return usagef("--seeds must be at least 1")
	case f.seeds > limits.Seeds:
		return usageError{limits.Check("--seeds", f.seeds, limits.Seeds)}
	case f.workers < 1:
		return usagef("--workers must be at least 1")
	case f.plan != "" && f.emitSlurm != "":
		return usagef("--plan and --emit-slurm cannot be combined")
	case f.tablesOnly && (f.plan != "" || f.emitSlurm != ""):
		return usagef("--tables-only cannot be combined with --plan or --emit-slurm")
	case f.slurmParallel < 0:
		return usagef("--slurm-parallel must not be negative")
	}
	if f.emitSlurm != "" || len(f.slurmOptions) > 0 {
		if err := checkSlurmFlags(*f); err != nil {
			return err
		}
	}
	if f.out == "" {
		f.out = "tables"
		if f.quick {
			f.out = "tables-quick"
		}
	}
	return nil
}

// reproTables builds the named table, or all of them, each with the grid
// options options gives for its name.
func reproTables(name string, options func(table string) tables.GridOptions) ([]*tables.Table, error) {
	names := []string{name}
	if name == "all" {
		names = tables.Names()
	} else if !slices.Contains(tables.Names(), name) {
		return nil, fmt.Errorf("unknown table %q (known: %s, or all)", name, strings.Join(tables.Names(), ", "))
	}
	var out []*tables.Table
	for _, n := range names {
		t, err := tables.Grid(n, options(n))
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// resolveTables builds the cells of the two-phase tables (fair) from the
// results of their searches in the store; the others are returned as they
// are.
func resolveTables(ts []*tables.Table, store experiment.Store) ([]*tables.Table, error) {
	out := make([]*tables.Table, len(ts))
	for i, t := range ts {
		r, err := tables.Resolve(t, tables.StoreSource{Store: store})
		if err != nil {
			return nil, fmt.Errorf("%s: %v", t.Name, err)
		}
		out[i] = r
	}
	return out, nil
}

// notePending tells, after a plan is written, which tables still have a
// search to finish before their second phase can be planned.
func notePending(w io.Writer, name string, ts []*tables.Table) {
	for _, t := range ts {
		if t.Pending() {
			fmt.Fprintf(w, "%s: the plan holds phase 1 for %d search trials still to finish (with the seeds of the searches already finished, and the runs of rows without a search); "+
				"once they are in the store, run 'nspda repro %s' with the same flags again to plan phase 2, the seeds of the selected settings\n",
				t.Name, len(t.Search), name)
		}
	}
}

// runPlan trains the plan's runs that the store lacks, printing one line per
// run as it ends.
func runPlan(ctx context.Context, w io.Writer, store experiment.Store, plan experiment.Plan, workers int) error {
	if len(plan) == 0 {
		return nil
	}
	fmt.Fprintf(w, "%d runs into %s, %d at a time\n", len(plan), store.Dir, workers)
	err := runAll(ctx, store, plan.Configs(), workers, func(r runReport) {
		if r.Err == nil {
			fmt.Fprintf(w, "[%d/%d] %s\n", r.Done, r.Total, runLine(r.Config, r.Summary, r.Outcome, r.Seconds))
		}
	})
	if errors.Is(err, context.Canceled) {
		return errors.New(resumeHint)
	}
	return err
}

// resumeHint is the message of an interrupted grid or plan task.
const resumeHint = "interrupted: run the same command again to resume"

// runLine describes one finished run.
func runLine(cfg experiment.Config, sum *experiment.Summary, outcome experiment.Outcome, seconds float64) string {
	what := cfg.Model
	if order := cfg.TensorOrder(); order != 0 {
		what += fmt.Sprintf(" order %d", order)
	}
	state := "not converged"
	if sum.Converged {
		state = fmt.Sprintf("converged after %d epochs", sum.Epochs)
	}
	var sets []string
	for _, r := range sum.Sets {
		sets = append(sets, fmt.Sprintf("%s %.2f%%", r.Name, r.ErrorPct))
	}
	line := fmt.Sprintf("%-7s %s %s on %s seed %d: %s, train error %.2f%%, %s", outcome, sum.Key, what, cfg.Grammar, cfg.Seed, state, sum.TrainErrorPct, strings.Join(sets, ", "))
	if outcome != experiment.Skipped {
		line += fmt.Sprintf(" (%.1fs)", seconds)
	}
	return line
}

// writePlan writes the tables' runs to path.
func writePlan(w io.Writer, path string, ts []*tables.Table) error {
	plan := tables.NewPlan(ts...)
	if err := plan.WriteFile(path); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %d runs to %s (run one with: nspda run --plan %s --index N)\n", len(plan), path, path)
	return nil
}

// emitSlurm writes dir/NAME.plan.jsonl and dir/NAME.sbatch.
func emitSlurm(w io.Writer, name string, ts []*tables.Table, f reproFlags) error {
	plan := tables.NewPlan(ts...)
	if len(plan) == 0 {
		return fmt.Errorf("table %s trains nothing: run 'nspda repro %s' directly", name, name)
	}
	dir, err := filepath.Abs(f.emitSlurm)
	if err != nil {
		return err
	}
	store, err := filepath.Abs(f.store)
	if err != nil {
		return err
	}
	bin := f.binary
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return fmt.Errorf("cannot find this executable (give --binary): %v", err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		return err
	}
	planPath := filepath.Join(dir, name+".plan.jsonl")
	if err := plan.WriteFile(planPath); err != nil {
		return err
	}
	job := slurmJob{Name: "nspda-" + name, Binary: bin, Plan: planPath, Store: store, Logs: filepath.Join(dir, "logs"),
		Tasks: len(plan), Parallel: f.slurmParallel, Options: f.slurmOptions}
	script := filepath.Join(dir, name+".sbatch")
	if err := atomicfile.WriteFile(script, []byte(job.script())); err != nil {
		return err
	}
	if err := os.Chmod(script, 0o755); err != nil {
		return err
	}
	grid := ""
	if f.seedsGiven {
		grid = fmt.Sprintf(" --seeds %d", f.seeds)
	}
	if f.quick {
		grid += " --quick"
	}
	then := fmt.Sprintf("nspda repro %s%s --tables-only --store %s", name, grid, store)
	for _, t := range ts {
		if t.Pending() {
			then = "the same command again, for the second phase (below)"
		}
	}
	fmt.Fprintf(w, "wrote %s (%d runs) and %s\nsubmit with: sbatch %s\nthen: %s\n", planPath, len(plan), script, script, then)
	if len(plan) > 1000 {
		fmt.Fprintf(w, "note: %d array tasks exceed Slurm's default MaxArraySize (1001); split the plan or raise the limit\n", len(plan))
	}
	return nil
}

// commandLine reconstructs the command for provenance: the table and the
// flags that were set, in name order.
func commandLine(cmd *cobra.Command, args []string) string {
	parts := append([]string{"nspda", cmd.Name()}, args...)
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if !fl.Changed {
			return
		}
		if fl.Value.Type() == "bool" {
			parts = append(parts, "--"+fl.Name)
			return
		}
		if sa, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sa.GetSlice() {
				parts = append(parts, "--"+fl.Name+"="+v)
			}
			return
		}
		parts = append(parts, "--"+fl.Name+"="+fl.Value.String())
	})
	return strings.Join(parts, " ")
}
