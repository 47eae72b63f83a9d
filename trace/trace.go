// Package trace records a run of an NSPDA step by step and writes it as
// one self-contained HTML page: its data as embedded JSON, a small script,
// no network access. Beside the run it shows the automaton extracted from
// the network (package extract), with the current state and transition
// highlighted.
package trace

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/nspda/nspda/extract"
	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
)

// Step is the network after one input symbol (or the end marker).
type Step struct {
	Input string    `json:"in"`
	On    []int     `json:"z"`            // state neurons on
	Op    string    `json:"op,omitempty"` // push, pop or noop; empty at $
	Reads []float64 `json:"r"`            // read neurons, the symbols' then ⊥'s
	Y     float64   `json:"y"`
	State string    `json:"q,omitempty"` // the extracted PDA's state after the step
	Trans int       `json:"t"`           // index of the PDA transition taken, -1 for none
}

// Run is one string's run: its start and one Step per symbol plus $.
type Run struct {
	String string  `json:"string"`
	Accept bool    `json:"accept"`
	Y      float64 `json:"y"`
	Start  Step    `json:"start"`
	Steps  []Step  `json:"steps"`
}

// Transition is one row of the extracted PDA's table.
type Transition struct {
	From, Input, Top, To, Op string
}

// Automaton is the extracted PDA as the page shows it.
type Automaton struct {
	Name        string       `json:"name"`
	States      []string     `json:"states"`
	Accept      []string     `json:"accept"`
	EmptyStack  bool         `json:"accept_empty_stack"`
	AcceptTops  []string     `json:"accept_with_top,omitempty"` // "q1: accepts with a, ⊥", one per state that has them
	Transitions []Transition `json:"transitions"`
	Edges       []string     `json:"edges"` // each transition's edge id in the SVG
}

// Page is everything the HTML page shows.
type Page struct {
	Title     string     `json:"title"`
	Alphabet  string     `json:"alphabet"`
	Neurons   []string   `json:"neurons"`
	Order     int        `json:"order"`
	Refine    int        `json:"refine"`
	Runs      []Run      `json:"runs"`
	Automaton *Automaton `json:"automaton"`
	Message   string     `json:"message,omitempty"` // why there is no automaton
	svg       string
}

// New records the runs of strings (symbol indices) through m with refine
// state iterations per symbol. ext may be nil or a failed extraction; svg
// is its drawing from extract.SVG, or nil for a table instead.
func New(title string, m *nspda.Model, refine int, ext *extract.Result, svg []byte, strs [][]int) *Page {
	p := &Page{Title: title, Alphabet: string(m.Alphabet), Order: int(m.Order), Refine: refine}
	for j := 0; j < m.J; j++ {
		p.Neurons = append(p.Neurons, m.NeuronName(j))
	}
	var pda *grammar.PDA
	switch {
	case ext == nil:
		p.Message = "no automaton was extracted"
	case ext.PDA == nil:
		p.Message = ext.Message
	default:
		pda = ext.PDA
		p.Automaton = automaton(pda)
		if i := bytes.Index(svg, []byte("<svg")); i >= 0 {
			p.svg = string(svg[i:])
		}
	}
	run := m.NewRunner()
	run.Refine = max(1, refine)
	for _, s := range strs {
		p.Runs = append(p.Runs, record(m, run, ext, pda, s))
	}
	return p
}

func automaton(p *grammar.PDA) *Automaton {
	a := &Automaton{Name: p.Name, States: p.States, EmptyStack: p.EmptyStack, Accept: []string{}}
	for q, ok := range p.Accept {
		if ok {
			a.Accept = append(a.Accept, p.States[q])
		}
		if note := extract.AcceptNote(p, q); note != "" {
			a.AcceptTops = append(a.AcceptTops, p.States[q]+" "+note)
		}
	}
	for _, t := range p.Transitions {
		a.Transitions = append(a.Transitions, Transition{p.States[t.From], string(p.Alphabet[t.Input]),
			extract.TopName(p, t.Top), p.States[t.To], t.Op.String()})
		a.Edges = append(a.Edges, extract.EdgeID(p, t.From, t.To))
	}
	return a
}

// record runs s and the end marker from the start.
func record(m *nspda.Model, run *nspda.Runner, ext *extract.Result, pda *grammar.PDA, s []int) Run {
	run.Reset()
	out := Run{String: string(decode(m, s)), Steps: make([]Step, 0, len(s)+1)}
	reads := make([]float64, m.R())
	snap := func(in string, op string) Step {
		run.Stack.Read(reads, run.Reads)
		st := Step{Input: in, On: append([]int{}, run.Active()...), Op: op, Y: round(run.Prediction(), 4), Trans: -1}
		st.Reads = make([]float64, len(reads))
		for i, v := range reads {
			st.Reads[i] = round(v, 4)
		}
		if pda != nil {
			if q, ok := ext.StateOf(run.Active(), run.Stack.Popped()); ok {
				st.State = pda.States[q]
			}
		}
		return st
	}
	out.Start = snap("", "")
	prev := -1
	if pda != nil {
		prev = pda.Start
	}
	for t := 0; t <= len(s); t++ {
		l, in := m.L, string(grammar.EndMarker)
		if t < len(s) {
			l, in = s[t], string(m.Alphabet[s[t]])
		}
		top := run.Stack.Top()
		if top < 0 {
			top = m.L
		}
		op := run.Step(l)
		name := op.String()
		if l == m.L {
			name = ""
		}
		st := snap(in, name)
		if pda != nil && prev >= 0 && l < m.L {
			st.Trans = transitionIndex(pda, prev, l, top)
		}
		prev = -1
		if pda != nil && st.State != "" {
			prev = index(pda.States, st.State)
		}
		out.Steps = append(out.Steps, st)
	}
	out.Y = round(run.Prediction(), 4)
	out.Accept = run.Prediction() > 0.5
	return out
}

// transitionIndex returns the index in p.Transitions of the transition from
// q on l with top k (k = L for the empty stack), or -1.
func transitionIndex(p *grammar.PDA, q, l, k int) int {
	for i, t := range p.Transitions {
		if t.From != q || t.Input != l {
			continue
		}
		if t.Top == grammar.TopAny || t.Top == k || (t.Top == grammar.TopEmpty && k == p.L()) {
			return i
		}
	}
	return -1
}

func index(names []string, s string) int {
	for i, n := range names {
		if n == s {
			return i
		}
	}
	return -1
}

func decode(m *nspda.Model, s []int) []rune {
	out := make([]rune, len(s))
	for i, l := range s {
		out[i] = m.Alphabet[l]
	}
	return out
}

func round(v float64, digits int) float64 {
	f := math.Pow(10, float64(digits))
	return math.Round(v*f) / f
}

//go:embed page.html
var pageHTML string

// HTML renders the page: the data as JSON inside a script element (the
// encoder escapes <, > and &, so no string can end it), the drawing inline.
func (p *Page) HTML() ([]byte, error) {
	data, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	r := strings.NewReplacer("{{TITLE}}", html.EscapeString(p.Title), "{{DATA}}", string(data), "{{SVG}}", p.svg)
	out := r.Replace(pageHTML)
	if strings.Count(out, "<html") != 1 {
		return nil, fmt.Errorf("trace: the page template is damaged")
	}
	return []byte(out), nil
}
