package main

import (
	"fmt"
	"strings"

	"github.com/nspda/nspda/experiment"
)

// slurmJob describes an sbatch job array over a plan: one array task per
// plan index, each running `nspda run --plan Plan --index $SLURM_ARRAY_TASK_ID
// --store Store`.
type slurmJob struct {
	Name     string   // job name
	Binary   string   // the nspda executable, as the compute nodes see it
	Plan     string   // plan file, as the nodes see it
	Store    string   // results store, as the nodes see it (a shared file system)
	Logs     string   // directory of the tasks' output files
	Tasks    int      // entries in the plan
	Parallel int      // most tasks running at once (0: no limit)
	Options  []string // extra sbatch options, e.g. "--partition=cpu", "--time=04:00:00"
}

// script returns the sbatch script. Paths are single-quoted for the shell.
func (j slurmJob) script() string {
	var b strings.Builder
	array := fmt.Sprintf("0-%d", j.Tasks-1)
	if j.Parallel > 0 {
		array += fmt.Sprintf("%%%d", j.Parallel)
	}
	fmt.Fprintf(&b, "#!/bin/sh\n")
	fmt.Fprintf(&b, "#SBATCH --job-name=%s\n", j.Name)
	fmt.Fprintf(&b, "#SBATCH --array=%s\n", array)
	fmt.Fprintf(&b, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n")
	fmt.Fprintf(&b, "#SBATCH --output=%s/%%A_%%a.out\n", j.Logs)
	for _, o := range j.Options {
		fmt.Fprintf(&b, "#SBATCH %s\n", o)
	}
	fmt.Fprintf(&b, "# %d runs of %s; each task trains one (or skips it if the store has it).\n", j.Tasks, j.Plan)
	fmt.Fprintf(&b, "# Afterwards: nspda collect (if tasks wrote to node-local stores) and nspda repro TABLE --tables-only.\n")
	fmt.Fprintf(&b, "set -eu\n")
	fmt.Fprintf(&b, "exec %s run --plan %s --index \"$SLURM_ARRAY_TASK_ID\" --store %s\n", shellQuote(j.Binary), shellQuote(j.Plan), shellQuote(j.Store))
	return b.String()
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// checkSlurmFlags refuses a line break or NUL in the text --emit-slurm
// writes into the script: an --slurm-option, the directory (the #SBATCH
// --output line and a comment name it unquoted), the binary and the store.
// A newline there would end the #SBATCH line and make the rest a shell
// command of every array task.
func checkSlurmFlags(f reproFlags) error {
	given := map[string][]string{"--slurm-option": f.slurmOptions, "--emit-slurm": {f.emitSlurm}, "--binary": {f.binary}, "--store": {f.store}}
	for _, flag := range []string{"--slurm-option", "--emit-slurm", "--binary", "--store"} {
		for _, s := range given[flag] {
			if i := strings.IndexAny(s, "\n\r\x00"); i >= 0 {
				return usagef("%s %s: a line break or NUL (at byte %d) has no place in an sbatch script", flag, experiment.QuoteShort(s), i+1)
			}
		}
	}
	return nil
}
