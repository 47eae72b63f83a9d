package grammar

import (
	"bytes"
	"fmt"
	"strings"
)

// MarshalSpec writes p as a spec file that Parse reads back into the same
// automaton: the same alphabet, start state, acceptance (accept_with_top
// only when some state has AcceptTops) and transitions,
// named by the same state names. Parse numbers the states in order of first
// appearance, so indices may differ; names do not. Every symbol and state
// name is single-quoted, so that brackets and other YAML indicators survive.
// A state that is neither the start nor in any transition is left out (Parse
// would refuse it in the accept list). The comment lines are the
// "# " + line of each entry of comment, before the spec.
func (p *PDA) MarshalSpec(comment ...string) []byte {
	var b bytes.Buffer
	for _, c := range comment {
		for _, line := range strings.Split(c, "\n") {
			fmt.Fprintf(&b, "# %s\n", line)
		}
	}
	if p.Name != "" {
		fmt.Fprintf(&b, "name: %s\n", quoteYAML(p.Name))
	}
	syms := make([]string, len(p.Alphabet))
	for i, s := range p.Alphabet {
		syms[i] = quoteYAML(string(s))
	}
	fmt.Fprintf(&b, "alphabet: [%s]\n", strings.Join(syms, ", "))
	fmt.Fprintf(&b, "start: %s\n", quoteYAML(p.States[p.Start]))
	used := make([]bool, p.M())
	used[p.Start] = true
	for _, t := range p.Transitions {
		used[t.From], used[t.To] = true, true
	}
	var accept []string
	for q, ok := range p.Accept {
		if ok && used[q] {
			accept = append(accept, quoteYAML(p.States[q]))
		}
	}
	fmt.Fprintf(&b, "accept: [%s]\n", strings.Join(accept, ", "))
	fmt.Fprintf(&b, "accept_empty_stack: %v\n", p.EmptyStack)
	header := "accept_with_top:              # state: [tops with which it also accepts]\n"
	for q, tops := range p.AcceptTops {
		if len(tops) == 0 || !used[q] {
			continue
		}
		b.WriteString(header)
		header = ""
		names := make([]string, len(tops))
		for i, k := range tops {
			names[i] = p.topWord(k)
		}
		fmt.Fprintf(&b, "  %s: [%s]\n", quoteYAML(p.States[q]), strings.Join(names, ", "))
	}
	b.WriteString("transitions:                  # [from, input, top, to, op]\n")
	for _, t := range p.Transitions {
		fmt.Fprintf(&b, "  - [%s, %s, %s, %s, %s]\n", quoteYAML(p.States[t.From]),
			quoteYAML(string(p.Alphabet[t.Input])), p.topWord(t.Top), quoteYAML(p.States[t.To]), t.Op)
	}
	return b.Bytes()
}

// topWord writes top k (a symbol index, TopEmpty or TopAny) as a spec file
// does: empty, any, or the symbol quoted for YAML.
func (p *PDA) topWord(k int) string { return p.top(k, quoteYAML) }

// quoteYAML single-quotes s for YAML (a quote inside is doubled). Newlines
// cannot appear in a name Parse accepted, but are replaced to keep one line.
func quoteYAML(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
