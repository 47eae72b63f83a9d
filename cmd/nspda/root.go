package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// usageError marks a mistake in how a command was called (exit status 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// run executes the command line and returns the exit status: 0 on success,
// 1 when the work failed, 2 for a usage mistake. Errors are printed as one
// line, "nspda: ...", on stderr.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var prof profiler
	root := newRoot(&prof)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if perr := prof.stop(); err == nil {
		err = perr
	}
	if err == nil {
		return 0
	}
	msg := strings.TrimSpace(err.Error())
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(msg) {
		fmt.Fprintf(stderr, "nspda: %s (see 'nspda help')\n", msg)
		return 2
	}
	fmt.Fprintf(stderr, "nspda: %s\n", msg)
	return 1
}

// isCobraUsage recognizes the errors cobra itself returns for a bad command
// line (it does not type them).
func isCobraUsage(msg string) bool {
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument", "required flag", "accepts ", "requires at least"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// flagError rewords pflag's error for a flag value it could not parse,
// `invalid argument "x" for "--lr" flag: strconv.ParseFloat: parsing "x":
// invalid syntax`, as `invalid argument "x" for --lr: not a number`: what
// the value should be, with no Go package's name. Other flag errors pass
// as they are.
func flagError(err error) error {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) {
		return err
	}
	return fmt.Errorf("invalid argument %q for --%s: %s", ive.GetValue(), ive.GetFlag().Name, valueProblem(errors.Unwrap(ive)))
}

// valueProblem says what is wrong with a flag's value from the error its
// parser returned.
func valueProblem(cause error) string {
	var ne *strconv.NumError
	if errors.As(cause, &ne) {
		kind := map[string]string{
			"Atoi": "an integer", "ParseInt": "an integer", "ParseUint": "a whole number (0 or more)",
			"ParseFloat": "a number", "ParseBool": "true or false",
		}[ne.Func]
		switch {
		case kind == "":
			return "not a valid value"
		case errors.Is(ne.Err, strconv.ErrRange):
			return "out of range for " + kind
		}
		return "not " + kind
	}
	var pe *csv.ParseError
	if cause == nil || errors.As(cause, &pe) {
		return "not a valid value"
	}
	return cause.Error()
}

// profiler writes a CPU profile of the whole command when --cpuprofile is
// given, for "go tool pprof".
type profiler struct {
	path string
	f    *os.File
}

func (p *profiler) start() error {
	if p.path == "" {
		return nil
	}
	f, err := os.Create(p.path)
	if err != nil {
		return fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("cpu profile %s: %w", p.path, err)
	}
	p.f = f
	return nil
}

func (p *profiler) stop() error {
	if p.f == nil {
		return nil
	}
	pprof.StopCPUProfile()
	err := p.f.Close()
	p.f = nil
	if err != nil {
		return fmt.Errorf("cpu profile %s: %w", p.path, err)
	}
	return nil
}

func newRoot(prof *profiler) *cobra.Command {
	root := &cobra.Command{
		Use:   "nspda",
		Short: "Neural state pushdown automata: datasets, rule insertion, evaluation",
		Long: `nspda implements "The Neural State Pushdown Automata" (Mali, Ororbia, Giles).

Grammars are the paper's five languages (palindrome, anbn, anbncbmam, anmbncm,
dyck2) or a path to a YAML file describing a deterministic PDA.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
	}
	root.SetVersionTemplate("nspda {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{flagError(err)} })
	root.PersistentFlags().StringVar(&prof.path, "cpuprofile", "", "write a CPU profile of the command to `FILE` (for go tool pprof)")
	root.PersistentPreRunE = func(*cobra.Command, []string) error { return prof.start() }
	root.AddCommand(newTrain(), newModels(), newCurves(), newGenerate(), newProgram(), newEval(), newClassify(), newExtract(), newInfer(), newTrace(), newRepro(), newRun(), newCollect(), newRestore(), newPack(), newVersion())
	return root
}
