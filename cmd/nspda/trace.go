package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/nspda/nspda/experiment"
	"github.com/nspda/nspda/extract"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/internal/atomicfile"
	"github.com/nspda/nspda/trace"
)

func newTrace() *cobra.Command {
	var mpath, out string
	cmd := &cobra.Command{
		Use:   "trace --model M.json --html OUT.html STRING...",
		Short: "Show an NSPDA's runs step by step in a web page",
		Long: `trace runs each STRING through an NSPDA and writes one self-contained HTML
page (its data and script embedded, nothing fetched): for every step the
input symbol, the state neurons on, the action and the stack, the read
neurons and the output; a slider, arrow keys, Home and End move through the
steps, and the last step shows the verdict ('nspda classify' gives the same).
Beside it is the automaton extracted from the network ('nspda extract'), with
the current state and transition highlighted: drawn when Graphviz's dot is
installed, else as a table. A URL fragment #run=N&step=T (or step=last) opens
the page at that string and step.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("give at least one string to trace")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("--html is required")
			}
			m, refine, err := loadNSPDA(mpath)
			if err != nil {
				return err
			}
			l, err := grammar.New(grammar.PDA{Name: "model", Alphabet: m.Alphabet, States: []string{"q"}, Accept: []bool{false}})
			if err != nil {
				return err
			}
			c := classifier{alpha: l}
			strs := make([][]int, len(args))
			for i, s := range args {
				if strs[i], err = c.encode(s); err != nil {
					return fmt.Errorf("string %s (argument %d): %v", experiment.QuoteShort(s), i+1, err)
				}
			}
			res := extract.Extract(m, extract.Options{Refine: refine, Name: "extracted"})
			var svg []byte
			if res.PDA != nil {
				src, err := extract.Dot(res.PDA)
				if err != nil {
					return err
				}
				if svg, _, err = extract.SVG(src); err != nil {
					return err
				}
			}
			page := trace.New("nspda trace: "+filepath.Base(mpath), m, refine, res, svg, strs)
			html, err := page.HTML()
			if err != nil {
				return err
			}
			if err := atomicfile.WriteFile(out, html); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			for _, r := range page.Runs {
				v := "reject"
				if r.Accept {
					v = "accept"
				}
				fmt.Fprintf(w, "%s  y=%.4f  %s\n", v, r.Y, experiment.QuoteShort(r.String))
			}
			if res.PDA == nil {
				fmt.Fprintf(w, "no automaton beside the run: %s\n", res.Message)
			}
			fmt.Fprintf(w, "-> %s\n", out)
			return nil
		},
	}
	cmd.Flags().StringVar(&mpath, "model", "", "NSPDA model file")
	cmd.Flags().StringVar(&out, "html", "", "HTML page to write")
	return cmd
}
