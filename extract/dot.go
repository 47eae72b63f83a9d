package extract

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/encoding"
	"gonum.org/v1/gonum/graph/encoding/dot"
	"gonum.org/v1/gonum/graph/multi"

	"github.com/nspda/nspda/grammar"
)

// dotNode is a PDA state, or the invisible start point (id -1 → node 0).
type dotNode struct {
	id    int64
	name  string
	attrs []encoding.Attribute
}

func (n dotNode) ID() int64                        { return n.id }
func (n dotNode) DOTID() string                    { return n.name }
func (n dotNode) Attributes() []encoding.Attribute { return n.attrs }

// dotEdge carries the labels of every transition between two states: one
// line of a multigraph (a simple graph has no self-loops).
type dotEdge struct {
	id    int64
	f, t  dotNode
	attrs []encoding.Attribute
}

func (e dotEdge) ID() int64                        { return e.id }
func (e dotEdge) From() graph.Node                 { return e.f }
func (e dotEdge) To() graph.Node                   { return e.t }
func (e dotEdge) ReversedLine() graph.Line         { return dotEdge{e.id, e.t, e.f, e.attrs} }
func (e dotEdge) Attributes() []encoding.Attribute { return e.attrs }

// dotGraph adds the graph-wide attributes.
type dotGraph struct{ *multi.DirectedGraph }

type attrs []encoding.Attribute

func (a attrs) Attributes() []encoding.Attribute { return a }

func (dotGraph) DOTAttributers() (g, n, e encoding.Attributer) {
	return attrs{{Key: "rankdir", Value: "LR"}},
		attrs{{Key: "shape", Value: "circle"}, {Key: "fontname", Value: "Helvetica"}},
		attrs{{Key: "fontname", Value: "Helvetica"}, {Key: "fontsize", Value: "11"}}
}

// TopName names stack top k (a symbol, L for the empty stack, or
// grammar.TopAny/TopEmpty) as transitions are labelled: the symbol, ⊥, or *.
func TopName(p *grammar.PDA, k int) string {
	switch {
	case k == grammar.TopAny:
		return "*"
	case k == grammar.TopEmpty || k == p.L():
		return "⊥"
	}
	return string(p.Alphabet[k])
}

// AcceptNote is "accepts with a, ⊥" for a state with accept_with_top tops
// (p.AcceptTops), listing every top it accepts with (those of accept and
// accept_empty_stack too), and "" for the others.
func AcceptNote(p *grammar.PDA, q int) string {
	if len(p.AcceptTops[q]) == 0 {
		return ""
	}
	var names []string
	for k := 0; k <= p.L(); k++ {
		if p.AcceptsAt(q, k) {
			names = append(names, TopName(p, k))
		}
	}
	if len(names) == p.L()+1 {
		return "accepts with any top"
	}
	return "accepts with " + strings.Join(names, ", ")
}

// Label is a transition's label: "input, top / op".
func Label(p *grammar.PDA, t grammar.Transition) string {
	return fmt.Sprintf("%c, %s / %s", p.Alphabet[t.Input], TopName(p, t.Top), t.Op)
}

// NodeID and EdgeID are the ids a drawing gives state q and the edge from
// q to r (graphviz copies them into its SVG), for pages that highlight them.
func NodeID(p *grammar.PDA, q int) string    { return "s_" + p.States[q] }
func EdgeID(p *grammar.PDA, q, r int) string { return "e_" + p.States[q] + "_" + p.States[r] }

// Dot draws p in the DOT language: states as circles (accepting ones
// double), an arrow into the start, one edge per pair of states labelled
// with every transition between them.
func Dot(p *grammar.PDA) ([]byte, error) {
	g := dotGraph{multi.NewDirectedGraph()}
	nodes := make([]dotNode, p.M())
	byTop := false
	for q, name := range p.States {
		shape := "circle"
		if p.AcceptsSome(q) {
			shape = "doublecircle"
		}
		nodes[q] = dotNode{id: int64(q) + 1, name: name, attrs: []encoding.Attribute{
			{Key: "shape", Value: shape}, {Key: "id", Value: NodeID(p, q)}}}
		if note := AcceptNote(p, q); note != "" {
			byTop = true
			nodes[q].attrs = append(nodes[q].attrs, encoding.Attribute{Key: "xlabel", Value: fmt.Sprintf("%q", note)})
		}
		g.AddNode(nodes[q])
	}
	start := dotNode{id: 0, name: "start", attrs: []encoding.Attribute{
		{Key: "shape", Value: "point"}, {Key: "style", Value: "invis"}}}
	g.AddNode(start)
	g.SetLine(dotEdge{id: 0, f: start, t: nodes[p.Start]})
	labels := map[[2]int][]string{}
	var pairs [][2]int
	for _, t := range p.Transitions {
		k := [2]int{t.From, t.To}
		if labels[k] == nil {
			pairs = append(pairs, k)
		}
		labels[k] = append(labels[k], Label(p, t))
	}
	for i, k := range pairs {
		g.SetLine(dotEdge{id: int64(i) + 1, f: nodes[k[0]], t: nodes[k[1]], attrs: []encoding.Attribute{
			{Key: "label", Value: fmt.Sprintf("%q", strings.Join(labels[k], "\n"))},
			{Key: "id", Value: EdgeID(p, k[0], k[1])}}})
	}
	var note string
	switch {
	case p.EmptyStack && byTop:
		note = " (a double-circled state accepts with the tops written beside it, or else with the empty stack)"
	case p.EmptyStack:
		note = " (accepts in a double-circled state with the empty stack)"
	case byTop:
		note = " (a double-circled state accepts with the tops written beside it, or else with any top)"
	}
	return dot.MarshalMulti(g, fmt.Sprintf("%q", p.Name+note), "", "  ")
}

// svgTimeout is how long SVG waits for Graphviz's dot: a few seconds for
// the automata of the tables, more than a minute for some of hundreds of
// states.
var svgTimeout = time.Minute

// SVG renders DOT source with Graphviz's dot, and reports whether dot is
// installed (found on PATH); it gives up after svgTimeout.
func SVG(src []byte) ([]byte, bool, error) {
	path, err := exec.LookPath("dot")
	if err != nil {
		return nil, false, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), svgTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "-Tsvg")
	cmd.Stdin = bytes.NewReader(src)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, true, fmt.Errorf("dot (Graphviz) did not lay the graph out within %v (%d bytes of DOT)", svgTimeout, len(src))
		}
		return nil, true, fmt.Errorf("graphviz dot: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out.Bytes(), true, nil
}
