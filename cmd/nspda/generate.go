package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/nspda/nspda/dataset"
	"github.com/nspda/nspda/internal/atomicfile"
	"github.com/nspda/nspda/internal/limits"
)

func newGenerate() *cobra.Command {
	var (
		gname, split, out string
		seed              uint64
		spec              dataset.Spec
	)
	cmd := &cobra.Command{
		Use:   "generate --grammar G --split train|valid|select|test60|test480|test960|edit60|edit960 --seed N --out FILE.jsonl",
		Short: "Generate a dataset split as JSON lines",
		Long: `generate writes one split of the paper's data protocol, one
{"string": "aabb", "label": 1} per line, and prints the split's statistics,
including the accuracy of the best classifier that sees only a string's length.
The same grammar, split and seed always give the same file, byte for byte.
Data of more than the bound of a file train --data reads (1 GiB) is refused,
and no file is written.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("--out is required")
			}
			if fi, err := os.Stat(out); err == nil && fi.IsDir() {
				return fmt.Errorf("%s: --out is a directory; give the JSONL file to write", out)
			}
			def, err := dataset.DefaultSpec(split)
			if err != nil {
				return usageError{err}
			}
			f := cmd.Flags()
			if !f.Changed("positives") {
				spec.Positives = def.Positives
			}
			if !f.Changed("negatives") {
				spec.Negatives = def.Negatives
			}
			if !f.Changed("min-len") {
				spec.MinLen = def.MinLen
			}
			if !f.Changed("max-len") {
				spec.MaxLen = def.MaxLen
			}
			spec.Split, spec.Distinct = def.Split, def.Distinct
			if err := spec.Validate(); err != nil {
				return usageError{err}
			}
			if least := leastDataBytes(spec); least > limits.DataBytes {
				return usagef("%d strings of at least %d symbols come to at least %d bytes, more than the limit of a data file (%d; --data would refuse it); ask for fewer strings (--positives, --negatives) or shorter ones (--min-len)",
					spec.Positives+spec.Negatives, spec.MinLen, least, int64(limits.DataBytes))
			}
			lang, err := loadGrammar(gname)
			if err != nil {
				return err
			}
			ex, err := dataset.GenerateWith(lang, spec, seed)
			if err != nil {
				return err
			}
			if err := writeData(out, ex, limits.DataBytes); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%s %s (seed %d) -> %s\n", lang.Name, split, seed, out)
			sayShortfall(w, lang.Name, spec, ex)
			return dataset.Summarize(ex).Report(w)
		},
	}
	f := cmd.Flags()
	f.StringVar(&gname, "grammar", "", "grammar: a built-in name or a PDA .yaml file")
	f.StringVar(&split, "split", "train", "split: train, valid, select (lengths 22–40, or 22–N with --max-len N: the data recipe selects on 22–200; for train --data --select), test60, test480, test960, or edit60 or edit960 (not the paper's: each negative one insertion or deletion from a positive, at any length)")
	f.Uint64Var(&seed, "seed", 1, "random seed")
	f.StringVar(&out, "out", "", "JSONL file to write")
	f.IntVar(&spec.Positives, "positives", 0, "number of positive strings (default: the split's)")
	f.IntVar(&spec.Negatives, "negatives", 0, "number of negative strings (default: the split's)")
	f.IntVar(&spec.MinLen, "min-len", 0, "shortest string (default: the split's)")
	f.IntVar(&spec.MaxLen, "max-len", 0, "longest string (default: the split's)")
	return cmd
}

// sayShortfall notes when the language has fewer strings of the split's
// lengths than were asked for, so that the file holds fewer.
func sayShortfall(w io.Writer, lang string, spec dataset.Spec, ex []dataset.Example) {
	var pos, neg int
	for _, e := range ex {
		if e.Label == dataset.Positive {
			pos++
		} else {
			neg++
		}
	}
	if pos < spec.Positives {
		fmt.Fprintf(w, "note: %d positive strings asked for, wrote %d: all the distinct members of %s of lengths %d to %d that sampling found\n",
			spec.Positives, pos, lang, spec.MinLen, spec.MaxLen)
	}
	if neg < spec.Negatives {
		fmt.Fprintf(w, "note: %d negative strings asked for, wrote %d, as many as there are positives\n", spec.Negatives, neg)
	}
}

// leastDataBytes is the fewest bytes the JSONL file of spec can take: every
// line holds at least {"string":"","label":0}, a newline and MinLen symbols.
// Refusing on it before sampling keeps generate from holding gigabytes of
// strings only to refuse the file at the end.
func leastDataBytes(spec dataset.Spec) int64 {
	const line = int64(len(`{"string":"","label":0}` + "\n"))
	return int64(spec.Positives+spec.Negatives) * (line + int64(spec.MinLen))
}

// writeData writes ex to path as JSONL, atomically, refusing before the
// rename a file of more than max bytes (limits.DataBytes: the bound of a
// file --data reads), so that generate never leaves a file that training
// would refuse.
func writeData(path string, ex []dataset.Example, max int64) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		return dataset.WriteJSONL(&cappedWriter{w: w, max: max}, ex)
	})
}

// cappedWriter passes writes on to w until they would take the total past
// max bytes, then fails.
type cappedWriter struct {
	w      io.Writer
	n, max int64
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	if c.n+int64(len(p)) > c.max {
		return 0, fmt.Errorf("the data comes to more than %d bytes, the limit of a data file (--data would refuse it); ask for fewer strings (--positives, --negatives) or shorter ones (--max-len)", c.max)
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
