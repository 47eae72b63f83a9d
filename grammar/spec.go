package grammar

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/nspda/nspda/internal/limits"
)

// SpecError is an error in a PDA description: a spec file read by Parse, or
// a transition given to New. Its text is one line, FILE:LINE: Msg.
type SpecError struct {
	File string // the file name given to Parse; empty for New
	Line int    // 1-based line of the offending text; 0 if unknown
	Msg  string // what is wrong, naming the offending thing
}

// Error returns FILE:LINE: Msg, or line LINE: Msg without a file, or Msg
// alone without a line.
func (e *SpecError) Error() string {
	switch {
	case e.File != "":
		return fmt.Sprintf("%s:%d: %s", e.File, max(e.Line, 1), e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

func lineErrorf(line int, format string, args ...any) *SpecError {
	return &SpecError{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// specFields are the keys of a spec file, in the order they are documented.
const specFields = "name, alphabet, start, accept, accept_empty_stack, accept_with_top, transitions"

// rowFields names the five fields of a transition row.
const rowFields = "[from, input, top, to, op]"

// Parse reads a PDA from a YAML spec file; filename is used in error
// messages (as "<spec>" if empty) and as the default name. The format is
//
//	name: anbn                    # optional; default: the file's base name
//	alphabet: [a, b]              # single-character symbols, not '$'
//	start: q0
//	accept: [q2]                  # may be empty
//	accept_empty_stack: true      # optional; default false
//	accept_with_top:              # optional: a state accepts with these tops too
//	  q1: [b]                     # a symbol, empty, or any (whatever the stack)
//	transitions:                  # [from, input, top, to, op]
//	  - [q0, a, empty, q1, push]  # top: a symbol, empty, or any (empty included)
//	  - [q1, a, a, q1, push]      # op: push (the input), pop or noop
//	  - [q1, b, a, q2, pop]
//	  - [q2, b, a, q2, pop]
//
// The states are the names used by start and the transitions: start first,
// then in order of first appearance. An accept state that is neither the
// start nor in any transition is an error (it is most likely a typo). A
// configuration with no transition for the next input rejects.
//
// At the end of the input, state q accepts with top k when q is in accept
// (and, under accept_empty_stack, the stack is empty), or when k is among
// q's tops in accept_with_top (empty: the empty stack; any: every top and
// the empty stack). accept_with_top therefore says what accept and
// accept_empty_stack cannot: that a state accepts with some tops and not
// with others. A top listed there that accept already covers is an error.
//
// Every error is a *SpecError whose text is one line, FILE:LINE: what is
// wrong. Parse does not panic, whatever the input.
func Parse(filename string, data []byte) (*PDA, error) {
	if len(data) > limits.SpecBytes {
		return nil, inFile(filename, fmt.Errorf("spec of %d bytes is more than the limit of %d bytes", len(data), limits.SpecBytes))
	}
	root, err := decodeYAML(data)
	if err != nil {
		return nil, inFile(filename, err)
	}
	s := &spec{name: defaultName(filename)}
	if err := s.read(root); err != nil {
		return nil, inFile(filename, err)
	}
	p, err := s.assemble()
	if err != nil {
		return nil, inFile(filename, err)
	}
	return p, nil
}

// Load returns the built-in language called nameOrPath or, failing that, the
// language of the PDA spec file at that path. A spec-file language recognizes
// with its PDA and samples with NewSampler.
func Load(nameOrPath string) (*Language, error) {
	if l, ok := Builtin(nameOrPath); ok {
		return l, nil
	}
	data, err := ReadSpec(nameOrPath)
	if err != nil {
		return nil, err
	}
	return FromSpec(nameOrPath, data)
}

// ReadSpec reads the PDA spec file at path, refusing one larger than
// limits.SpecBytes before reading it.
func ReadSpec(path string) ([]byte, error) {
	data, err := limits.ReadFile(path, "PDA spec file", limits.SpecBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("unknown grammar %q (built-in: %s; or a path to a .yaml PDA file)",
			path, strings.Join(Names(), ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read grammar %q: %w", path, err)
	}
	return data, nil
}

// FromSpec returns the language of the PDA spec data, read from path (which
// names it in errors and gives its default name).
func FromSpec(path string, data []byte) (*Language, error) {
	p, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	return &Language{
		Name:        p.Name,
		Description: fmt.Sprintf("the PDA in %s (%d states, alphabet %s)", path, p.M(), p.AlphabetString()),
		PDA:         p,
		Recognize:   p.Accepts,
		Sample:      NewSampler(p),
		SampleLimit: func(n int) error { return SampleLimit(p, n) },
	}, nil
}

// inFile puts filename into err, making it a one-line *SpecError.
func inFile(filename string, err error) error {
	var se *SpecError
	if !errors.As(err, &se) {
		se = &SpecError{Msg: err.Error()}
	}
	out := *se
	out.File = filename
	if out.File == "" {
		out.File = "<spec>"
	}
	out.Msg = strings.ReplaceAll(out.Msg, "\n", " ")
	return &out
}

func defaultName(filename string) string {
	base := filepath.Base(filename)
	if name := strings.TrimSuffix(base, filepath.Ext(base)); name != "" && name != "." && name != "/" {
		return name
	}
	return "spec"
}

// decodeYAML parses data as exactly one YAML document and returns its root.
func decodeYAML(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, lineErrorf(1, "empty file (want a mapping with keys %s)", specFields)
		}
		return nil, yamlError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		if err != nil {
			return nil, yamlError(err)
		}
		return nil, lineErrorf(extra.Line, "a second YAML document (want one mapping)")
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		return doc.Content[0], nil
	}
	return &doc, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parserProblems are the errors of yaml's parser (as opposed to its
// scanner). It reports their line 0-based (and omits line 0), so they need
// one added; the scanner's lines are 1-based already.
var parserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found undefined tag handle":             true,
	"found duplicate %YAML directive":        true,
	"found duplicate %TAG directive":         true,
	"found incompatible YAML document":       true,
}

// yamlError turns a YAML syntax error into a *SpecError.
func yamlError(err error) error {
	msg := strings.TrimPrefix(strings.ReplaceAll(err.Error(), "\n", " "), "yaml: ")
	line := 0
	if m := yamlLine.FindStringSubmatch("yaml: " + msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	if parserProblems[msg] {
		line++
	}
	return lineErrorf(line, "malformed YAML: %s", msg)
}

// field is a scalar of the spec with the line it is on.
type field struct {
	text string
	line int
}

// row is one transition: [from, input, top, to, op].
type row struct {
	f    [5]field
	line int
}

// spec is a spec file's content before it is checked and turned into a PDA.
type spec struct {
	name       string
	alphabet   []field
	start      field
	accept     []field
	emptyStack bool
	acceptTops []acceptTops
	rows       []row
	line       int // of the top-level mapping, for missing keys
}

// acceptTops is one entry of accept_with_top: a state and its tops.
type acceptTops struct {
	state field
	tops  []field
}

func deref(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "an unexpected YAML node"
}

// read fills s from the top-level mapping of a spec file.
func (s *spec) read(root *yaml.Node) error {
	root = deref(root)
	if root.Kind != yaml.MappingNode {
		return lineErrorf(root.Line, "the spec must be a mapping with keys %s, got %s", specFields, kindName(root))
	}
	s.line = root.Line
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := deref(root.Content[i]), deref(root.Content[i+1])
		if first, dup := seen[k.Value]; dup {
			return lineErrorf(k.Line, "field %q is given twice (first on line %d)", k.Value, first)
		}
		seen[k.Value] = k.Line
		if err := s.readField(k, v); err != nil {
			return err
		}
	}
	for _, key := range []string{"alphabet", "start", "accept", "transitions"} {
		if _, ok := seen[key]; !ok {
			return lineErrorf(s.line, "missing field %q (want %s)", key, specFields)
		}
	}
	return nil
}

func (s *spec) readField(k, v *yaml.Node) error {
	var err error
	switch k.Value {
	case "name":
		var f field
		f, err = scalar(v, "name")
		s.name = cmpOr(f.text, s.name)
	case "alphabet":
		s.alphabet, err = scalars(v, "alphabet", "a list of symbols such as [a, b]")
		if err == nil {
			err = limits.Check("alphabet size", len(s.alphabet), limits.Alphabet)
		}
	case "start":
		s.start, err = scalar(v, "start")
	case "accept":
		s.accept, err = scalars(v, "accept", "a list of states such as [q2]")
	case "accept_empty_stack":
		s.emptyStack, err = boolean(v, "accept_empty_stack")
	case "accept_with_top":
		s.acceptTops, err = readAcceptTops(v)
	case "transitions":
		s.rows, err = rows(v)
	default:
		err = lineErrorf(k.Line, "unknown field %s (want %s)", kindName(k), specFields)
	}
	return err
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func scalar(n *yaml.Node, what string) (field, error) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || n.Value == "" {
		return field{}, lineErrorf(n.Line, "%s must be a single value, got %s", what, kindName(n))
	}
	return field{n.Value, n.Line}, nil
}

func scalars(n *yaml.Node, what, want string) ([]field, error) {
	n = deref(n)
	if n.Kind != yaml.SequenceNode {
		return nil, lineErrorf(n.Line, "%s must be %s, got %s", what, want, kindName(n))
	}
	out := make([]field, 0, len(n.Content))
	for _, c := range n.Content {
		f, err := scalar(c, "each entry of "+what)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func boolean(n *yaml.Node, what string) (bool, error) {
	n = deref(n)
	if n.Kind == yaml.ScalarNode {
		switch strings.ToLower(n.Value) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, lineErrorf(n.Line, "%s must be true or false, got %s", what, kindName(n))
}

// readAcceptTops reads accept_with_top: a mapping from states to non-empty
// lists of tops.
func readAcceptTops(n *yaml.Node) ([]acceptTops, error) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return nil, lineErrorf(n.Line, "accept_with_top must be a mapping from states to lists of tops, such as {q1: [a, empty]}, got %s", kindName(n))
	}
	seen := map[string]int{}
	var out []acceptTops
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		state, err := scalar(k, "each state of accept_with_top")
		if err != nil {
			return nil, err
		}
		if first, dup := seen[state.text]; dup {
			return nil, lineErrorf(state.line, "state %q is given twice in accept_with_top (first on line %d)", state.text, first)
		}
		seen[state.text] = state.line
		want := "a non-empty list of tops such as [a, empty]"
		tops, err := scalars(v, fmt.Sprintf("the tops of %q in accept_with_top", state.text), want)
		if err != nil {
			return nil, err
		}
		if len(tops) == 0 {
			return nil, lineErrorf(v.Line, "the tops of %q in accept_with_top must be %s, got an empty list", state.text, want)
		}
		out = append(out, acceptTops{state, tops})
	}
	return out, nil
}

func rows(n *yaml.Node) ([]row, error) {
	n = deref(n)
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return nil, lineErrorf(n.Line, "transitions must be a non-empty list of %s, got %s", rowFields, kindName(n))
	}
	if err := limits.Check("transitions", len(n.Content), limits.Transitions); err != nil {
		return nil, lineErrorf(n.Line, "%v", err)
	}
	out := make([]row, 0, len(n.Content))
	for _, c := range n.Content {
		c = deref(c)
		if c.Kind != yaml.SequenceNode {
			return nil, lineErrorf(c.Line, "transition must be a list %s, got %s", rowFields, kindName(c))
		}
		if len(c.Content) != 5 {
			return nil, lineErrorf(c.Line, "transition has %d fields, want 5: %s", len(c.Content), rowFields)
		}
		r := row{line: c.Line}
		for i, x := range c.Content {
			f, err := scalar(x, "each field of a transition")
			if err != nil {
				return nil, err
			}
			r.f[i] = f
		}
		out = append(out, r)
	}
	return out, nil
}
