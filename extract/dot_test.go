package extract

import (
	"strings"
	"testing"
	"time"

	"github.com/nspda/nspda/grammar"
)

func TestDot(t *testing.T) {
	l, _ := grammar.Builtin("dyck2")
	src, err := Dot(l.PDA)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"doublecircle", `"(, * / push`, "e_q1_q1", "s_q0"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("DOT lacks %q:\n%s", want, src)
		}
	}
	ta, err := grammar.Load("../grammar/testdata/topaccept.yaml")
	if err != nil {
		t.Fatal(err)
	}
	top, err := Dot(ta.PDA)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"doublecircle", `xlabel="accepts with a, ⊥"`, "or else with the empty stack"} {
		if !strings.Contains(string(top), want) {
			t.Errorf("DOT of topaccept lacks %q:\n%s", want, top)
		}
	}
	svg, ok, err := SVG(src)
	if !ok {
		t.Skip("graphviz dot is not installed; the SVG is not checked")
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), `id="s_q1"`) {
		t.Errorf("the SVG lacks the state's id")
	}
}

// TestSVGTimeout: a layout dot does not finish in time is refused with
// what happened, not the signal that ended it.
func TestSVGTimeout(t *testing.T) {
	defer func(d time.Duration) { svgTimeout = d }(svgTimeout)
	svgTimeout = time.Nanosecond
	_, ok, err := SVG([]byte("digraph { a -> b }"))
	if !ok {
		t.Skip("graphviz dot is not installed")
	}
	if err == nil || !strings.Contains(err.Error(), "did not lay the graph out within 1ns") {
		t.Errorf("got %v, want the timeout named", err)
	}
}
