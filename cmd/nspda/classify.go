package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/nspda/nspda/evaluate"
	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/internal/limits"
	"github.com/nspda/nspda/model/nspda"
)

func newClassify() *cobra.Command {
	var (
		mpath, file string
		trace       bool
	)
	cmd := &cobra.Command{
		Use:   "classify --model M [--trace] STRING... | --file F",
		Short: "Accept or reject strings with a model",
		Long: `classify prints accept or reject, the output y and the string, for each
STRING or, with --file, each line of F ("-": standard input), read and
classified one at a time. A string has at most ` + fmt.Sprint(limits.StringLen) + ` symbols. --trace
(NSPDA models) shows every step; its stack column shows the top ` + fmt.Sprint(traceTop) + ` symbols.`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0 && !cmd.Flags().Changed("file"):
				return usagef("give at least one string to classify, or --file")
			case len(args) > 0 && cmd.Flags().Changed("file"):
				return usagef("give strings as arguments or with --file, not both")
			case cmd.Flags().Changed("file") && file == "":
				return usagef("--file needs a file name (- for standard input)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := loadModel(mpath)
			if err != nil {
				return err
			}
			alpha, err := modelAlphabet(m)
			if err != nil {
				return err
			}
			w, isNSPDA := m.Model.(nspda.Weighted)
			if trace && !isNSPDA {
				return usagef("--trace shows the NSPDA's states and stack; %s models have neither", m.Kind())
			}
			c := classifier{w: cmd.OutOrStdout(), alpha: alpha, run: m.classifier(), trace: trace}
			if isNSPDA {
				c.net = w.Weights()
			}
			if file != "" {
				return c.file(cmd.InOrStdin(), file)
			}
			// Encode every argument before printing anything, so that a bad
			// string gives an error and no partial output.
			encoded := make([][]int, len(args))
			for i, s := range args {
				if encoded[i], err = c.encode(s); err != nil {
					return fmt.Errorf("string %s (argument %d): %v", experiment.QuoteShort(s), i+1, err)
				}
			}
			for i, s := range args {
				c.classify(s, encoded[i])
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&mpath, "model", "", "model file")
	cmd.Flags().StringVar(&file, "file", "", "classify each line of `FILE` (- for standard input), streamed")
	cmd.Flags().BoolVar(&trace, "trace", false, "print every step: input, active state neurons, stack action, stack")
	return cmd
}

// classifier classifies strings for classify.
type classifier struct {
	w     io.Writer
	alpha *grammar.PDA
	run   evaluate.Classifier
	net   *nspda.Model // nil unless the model is an NSPDA
	trace bool
}

// encode checks s's length against limits.StringLen, then encodes it.
func (c *classifier) encode(s string) ([]int, error) {
	if n := utf8.RuneCountInString(s); n > limits.StringLen {
		return nil, fmt.Errorf("%d symbols, more than the limit of %d", n, limits.StringLen)
	}
	return c.alpha.Encode(s)
}

func (c *classifier) classify(s string, syms []int) {
	if c.trace {
		traceString(c.w, c.net, c.net.NewRunner(), c.alpha, syms)
	}
	ok, y := c.run.Classify(syms)
	verdict := "reject"
	if ok {
		verdict = "accept"
	}
	fmt.Fprintf(c.w, "%s  y=%.4f  %s\n", verdict, y, experiment.QuoteShort(s))
}

// file classifies each line of path ("-": in), one at a time: memory is
// bounded by the longest line, and output follows input.
func (c *classifier) file(in io.Reader, path string) error {
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 4*limits.StringLen+2)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSuffix(sc.Text(), "\r")
		if !utf8.ValidString(s) {
			return fmt.Errorf("%s:%d: invalid UTF-8", path, line)
		}
		syms, err := c.encode(s)
		if err != nil {
			return fmt.Errorf("%s:%d: string %s: %v", path, line, experiment.QuoteShort(s), err)
		}
		c.classify(s, syms)
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return fmt.Errorf("%s:%d: line longer than %d symbols, the limit", path, line+1, limits.StringLen)
	}
	return sc.Err()
}

// traceTop is the number of stack symbols a trace line shows, so that a
// trace costs time linear in the string's length.
const traceTop = 16

// traceString prints one line per step of syms followed by the end marker.
func traceString(w io.Writer, m *nspda.Model, run *nspda.Runner, alpha *grammar.PDA, syms []int) {
	run.Reset()
	fmt.Fprintf(w, "%4s  %-5s  %-20s  %-6s  %-8s  %s\n", "step", "input", "state", "action", "y", "stack (bottom..top)")
	fmt.Fprintf(w, "%4d  %-5s  %-20s  %-6s  %-8.4f  %s\n", 0, "", active(m, run), "", run.Prediction(), "")
	for t := 0; t <= len(syms); t++ {
		l, in := m.L, string(grammar.EndMarker)
		if t < len(syms) {
			l, in = syms[t], printable(string(m.Alphabet[syms[t]]))
		}
		op := run.Step(l)
		action := op.String()
		if l == m.L {
			action = "-"
		}
		fmt.Fprintf(w, "%4d  %-5s  %-20s  %-6s  %-8.4f  %s\n", t+1, in, active(m, run), action, run.Prediction(), stackTop(alpha, run.Stack.Symbols()))
	}
}

func active(m *nspda.Model, run *nspda.Runner) string {
	var names []string
	for _, j := range run.Active() {
		names = append(names, printable(m.NeuronName(j)))
	}
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ",")
}

// stackTop renders a stack's top traceTop symbols, bottom to top, with the
// depth of a deeper stack before them: "[120] …abab".
func stackTop(alpha *grammar.PDA, syms []int) string {
	if len(syms) <= traceTop {
		return printable(alpha.Decode(syms))
	}
	return fmt.Sprintf("[%d] …%s", len(syms), printable(alpha.Decode(syms[len(syms)-traceTop:])))
}

// printable returns s with every character a terminal would not show as
// itself (control characters such as ESC, invalid UTF-8) escaped as Go
// escapes them, \x1b: neuron names and symbols come from the model file,
// and a name must not move the cursor or recolour the terminal.
func printable(s string) string {
	if !strings.ContainsFunc(s, notPrintable) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i, w := 0, 0; i < len(s); i += w {
		r, n := utf8.DecodeRuneInString(s[i:])
		w = n
		if notPrintable(r) || r == utf8.RuneError && n == 1 {
			q := strconv.QuoteToASCII(s[i : i+n])
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteString(s[i : i+n])
	}
	return b.String()
}

func notPrintable(r rune) bool { return r != ' ' && !strconv.IsPrint(r) }
