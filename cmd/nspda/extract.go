package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/extract"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/internal/atomicfile"
	"github.com/nspda/nspda/internal/limits"
	"github.com/nspda/nspda/model/nspda"
)

// Bounds of extract: the strings it compares exhaustively, the control
// states it explores.
const (
	maxExhaustive = 1 << 26
	maxExplore    = 1 << 20
	// maxExploreWords bounds --max-states × (J + L + 32): a state explored
	// costs up to its J active neurons, a verdict per top and some 32 words
	// of bookkeeping, so that exploration stays within a few hundred MB
	// whatever the model (extract.DefaultMaxMoves bounds the rest).
	maxExploreWords = 1 << 25
)

func newExtract() *cobra.Command {
	var (
		mpath, out, gname, sets, dotPath, report string
		maxLen, refine, maxStates                int
		seed                                     uint64
	)
	cmd := &cobra.Command{
		Use:   "extract --model M.json --out P.yaml [--grammar G] [--max-len N] [--dot F.dot] [--report R.json]",
		Short: "Read the PDA a trained NSPDA implements",
		Long: `extract explores the configurations an NSPDA reaches (its binary state vector,
the symbol its last action popped, the top of its stack), reads its
transitions and accepting states, minimizes the automaton, and writes it as a
PDA file that program, generate, eval and classify read (docs/design.md
section 9). It then compares the PDA with the network on every string up to
--max-len and, with --grammar, with the target language on those strings and
on --sets, printing the shortest strings on which they differ.

A network whose verdict at the end depends on the stack's top gets a PDA
that says so with accept_with_top. A network whose state vector takes more
than --max-states values (no finite control of that size) gets a message
and a partial --report, and no PDA file (exit status 1).

--dot writes the automaton in Graphviz's DOT language and, when Graphviz's
dot is on PATH, beside it the same name with .svg.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("--out is required")
			}
			if maxLen < 0 {
				return usagef("--max-len must be at least 0")
			}
			if err := limits.Check("--max-len", maxLen, limits.StringLen); err != nil {
				return usageError{err}
			}
			if cmd.Flags().Changed("sets") && gname == "" {
				return usagef("--sets needs --grammar: the sets are drawn from the target language")
			}
			if maxStates < 1 || maxStates > maxExplore {
				return usagef("--max-states must be between 1 and %d", maxExplore)
			}
			net, refineOf, err := loadNSPDA(mpath)
			if err != nil {
				return err
			}
			if most := maxExploreWords / (net.J + net.L + 32); maxStates > most {
				return usagef("--max-states %d is too many for a model with %d state neurons and %d symbols: at most %d (each state explored costs memory in proportion to both)",
					maxStates, net.J, net.L, most)
			}
			if !cmd.Flags().Changed("max-len") {
				maxLen = defaultMaxLen(net.L)
			}
			if n := exhaustiveCount(net.L, maxLen); n > maxExhaustive {
				return usagef("--max-len %d means %.0f strings over %d symbols; at most %d", maxLen, n, net.L, maxExhaustive)
			}
			opt := extract.CheckOptions{MaxLen: maxLen, Seed: seed}
			opt.Refine, opt.MaxStates = refineOf, maxStates
			opt.Name = specName(out)
			if cmd.Flags().Changed("refine") {
				if refine < 1 || refine > limits.Refine {
					return usagef("--refine must be between 1 and %d", limits.Refine)
				}
				opt.Refine = refine
			}
			if gname != "" {
				if opt.Target, err = grammar.Load(gname); err != nil {
					return err
				}
				if err := sameSymbols(net.Alphabet, opt.Target); err != nil {
					return err
				}
				if sets != "" {
					if opt.Sets, err = parseSets(sets); err != nil {
						return err
					}
				}
			}
			res, rep, err := extract.Check(net, opt)
			if err != nil {
				return err
			}
			if report != "" {
				if err := atomicfile.WriteJSON(report, rep); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if res.PDA == nil || !rep.OK {
				return fmt.Errorf("cannot extract a PDA from %s: %s", mpath, rep.Message)
			}
			// The path is Go-quoted: a line break in it must not end the
			// comment and start a line of the spec.
			comment := fmt.Sprintf("extracted by nspda extract from %q (order %d, J=%d, K=%d)", mpath, rep.Order, rep.J, rep.Refine)
			spec, err := extract.Spec(res.PDA, comment)
			if err != nil {
				return err
			}
			if err := atomicfile.WriteFile(out, spec); err != nil {
				return err
			}
			printExtract(w, rep, out)
			if dotPath != "" {
				return writeDot(w, res.PDA, dotPath)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&mpath, "model", "", "NSPDA model file")
	f.StringVar(&out, "out", "", "PDA spec file to write (YAML)")
	f.StringVar(&gname, "grammar", "", "target language: a built-in name or a PDA .yaml file")
	f.IntVar(&maxLen, "max-len", defaultExhaustive, "compare on every string up to this length; unset, the longest up to 10 whose strings number at most 2^26")
	f.StringVar(&sets, "sets", "test960", "comma-separated named splits of --grammar to compare on (only with --grammar)")
	f.Uint64Var(&seed, "seed", 1, "seed of the named sets")
	f.StringVar(&dotPath, "dot", "", "write the automaton in DOT to `FILE` (and FILE's .svg with Graphviz)")
	f.StringVar(&report, "report", "", "write the JSON report to `FILE`")
	f.IntVar(&refine, "refine", 0, "state iterations per symbol (default: the model's eval_refine)")
	f.IntVar(&maxStates, "max-states", extract.DefaultMaxStates, "give up beyond this many distinct (state vector, popped) pairs")
	return cmd
}

// loadNSPDA reads --model, which must be an NSPDA, with its refinement.
func loadNSPDA(path string) (*nspda.Model, int, error) {
	m, err := loadModel(path)
	if err != nil {
		return nil, 0, err
	}
	w, ok := m.Model.(nspda.Weighted)
	if !ok {
		return nil, 0, fmt.Errorf("%s is a %s model; only an NSPDA has a state and a stack to read", path, m.Kind())
	}
	return w.Weights(), m.refine, nil
}

// defaultExhaustive is --max-len's default where the alphabet allows it.
const defaultExhaustive = 10

// defaultMaxLen is --max-len's default over L symbols: defaultExhaustive,
// or the longest length whose strings number at most maxExhaustive (over
// six symbols or more, 10 would be too many).
func defaultMaxLen(L int) int {
	n := defaultExhaustive
	for n > 0 && exhaustiveCount(L, n) > maxExhaustive {
		n--
	}
	return n
}

// exhaustiveCount is Σ_{n ≤ maxLen} L^n.
func exhaustiveCount(L, maxLen int) float64 {
	n := 0.0
	for i := 0; i <= maxLen; i++ {
		n += math.Pow(float64(L), float64(i))
	}
	return n
}

// printExtract summarizes a successful extraction.
func printExtract(w io.Writer, rep *extract.Report, out string) {
	fmt.Fprintf(w, "extracted %d states (%d control states explored, %d live) from an order-%d NSPDA (J=%d, K=%d) in %.2fs -> %s\n",
		rep.States, rep.Explored, rep.Live, rep.Order, rep.J, rep.Refine, rep.ExtractSeconds, out)
	fmt.Fprintf(w, "acceptance: by %s\n", rep.Acceptance)
	c := rep.Comparison
	strs, netDis, tgtDis := 0, 0, 0
	var sets []string
	for _, a := range c.Agreements {
		netDis += a.NetworkDisagree
		tgtDis += a.TargetDisagree
		if a.Name == "" {
			strs += a.Strings
		} else {
			sets = append(sets, fmt.Sprintf("%s (%d strings)", a.Name, a.Strings))
		}
	}
	where := fmt.Sprintf("every string up to length %d (%d)", rep.MaxLen, strs)
	if len(sets) > 0 {
		where += " and " + strings.Join(sets, ", ")
	}
	fmt.Fprintf(w, "network: agrees on %s\n", where)
	if rep.Grammar == "" {
		return
	}
	if tgtDis == 0 {
		fmt.Fprintf(w, "target %s (%d states): agrees on %s\n", rep.Grammar, rep.ReferenceStates, where)
		return
	}
	fmt.Fprintf(w, "target %s (%d states): differs on %d of the strings compared; the shortest:\n", rep.Grammar, rep.ReferenceStates, tgtDis)
	for _, ce := range c.TargetCounter {
		fmt.Fprintf(w, "  %-24s extracted %s, %s %s\n", experiment.QuoteShort(ce.String), verdict(ce.Extracted), rep.Grammar, verdict(ce.Other))
	}
}

func verdict(ok bool) string {
	if ok {
		return "accepts"
	}
	return "rejects"
}

// writeDot writes the DOT drawing and, with Graphviz, the SVG beside it.
func writeDot(w io.Writer, p *grammar.PDA, path string) error {
	src, err := extract.Dot(p)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, src); err != nil {
		return err
	}
	svg, ok, err := extract.SVG(src)
	switch {
	case !ok:
		fmt.Fprintf(w, "drawing -> %s (Graphviz's dot is not installed: no SVG)\n", path)
		return nil
	case err != nil:
		// The DOT file asked for is written: the SVG beside it is extra.
		fmt.Fprintf(w, "drawing -> %s (no SVG: %v)\n", path, err)
		return nil
	}
	svgPath := strings.TrimSuffix(path, filepath.Ext(path)) + ".svg"
	if err := atomicfile.WriteFile(svgPath, svg); err != nil {
		return err
	}
	fmt.Fprintf(w, "drawing -> %s, %s\n", path, svgPath)
	return nil
}
