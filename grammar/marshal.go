package grammar

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MarshalSpec writes p as a spec file that Parse reads back into the same
// automaton: the same alphabet, start state, acceptance (accept_with_top
// only when some state has AcceptTops) and transitions,
// named by the same state names. Parse numbers the states in order of first
// appearance, so indices may differ; names do not. Every symbol and state
// name is quoted (quoteYAML), so that brackets, other YAML indicators and
// YAML line breaks survive.
// A state that is neither the start nor in any transition is left out (Parse
// would refuse it in the accept list). The comment lines are the
// "# " + line of each line (split at "\n") of each entry of comment, before
// the spec, with any other line break or control character escaped
// (escapeYAML): a comment cannot add a line to the spec.
func (p *PDA) MarshalSpec(comment ...string) []byte {
	var b bytes.Buffer
	for _, c := range comment {
		for _, line := range strings.Split(c, "\n") {
			fmt.Fprintf(&b, "# %s\n", escapeYAML(line, false))
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

// quoteYAML quotes s for YAML so that it reads back as s: single-quoted
// (a quote inside doubled) when every character stands for itself there,
// else double-quoted with escapes. A YAML line break (LF, CR, NEL, LS, PS)
// inside single quotes folds into a space, and a control character, a BOM
// or a non-character makes the file unreadable; double quotes spell them
// \x85, \u2028 and so on. Bytes that are not UTF-8 cannot be written in
// YAML: each becomes U+FFFD.
func quoteYAML(s string) string {
	if !needsEscape(s) {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return `"` + escapeYAML(s, true) + `"`
}

// needsEscape reports whether s holds a character that a single-quoted
// YAML scalar does not keep as it is.
func needsEscape(s string) bool {
	for _, r := range s {
		if !plainYAML(r) {
			return true
		}
	}
	return !utf8.ValidString(s)
}

// plainYAML reports whether r stands for itself in YAML text: a printable
// character of YAML 1.2 (tab included) other than a line break or a BOM.
func plainYAML(r rune) bool {
	switch {
	case r == '\t' || (r >= 0x20 && r <= 0x7e):
		return true
	case r == 0x2028 || r == 0x2029 || r == 0xfeff:
		return false
	}
	return (r >= 0xa0 && r <= 0xd7ff) || (r >= 0xe000 && r <= 0xfffd) || (r >= 0x10000 && r <= utf8.MaxRune)
}

// escapeYAML spells every character of s that is not plainYAML (and, in a
// double-quoted scalar, quote and backslash) as a YAML escape, so that s
// keeps to one line, reads back as itself inside double quotes and, in a
// comment, cannot start a line of its own. A byte that is not UTF-8 is
// written as \xNN in a comment (which is never read back) and as U+FFFD in
// a scalar.
func escapeYAML(s string, quoted bool) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			if quoted {
				b.WriteString(`\uFFFD`)
			} else {
				fmt.Fprintf(&b, `\x%02x`, s[i])
			}
		case quoted && (r == '"' || r == '\\'):
			b.WriteByte('\\')
			b.WriteRune(r)
		case plainYAML(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	return b.String()
}
