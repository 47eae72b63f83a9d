package grammar_test

import (
	"fmt"

	"github.com/nspda/nspda/grammar"
)

func ExampleBuiltin() {
	anbn, _ := grammar.Builtin("anbn")
	for _, s := range []string{"aabb", "aab"} {
		fmt.Printf("%s: recognizer %v, PDA %v\n", s, anbn.Recognize(s), anbn.PDA.Accepts(s))
	}
	// Output:
	// aabb: recognizer true, PDA true
	// aab: recognizer false, PDA false
}

func ExampleParse() {
	_, err := grammar.Parse("g.yaml", []byte(`name: anbn
alphabet: [a, b]
start: q0
accept: [q2]
transitions:
  - [q0, a, empty, q1, push]
  - [q1, a, a, q1, push]
  - [q1, b, a, q2, pop]
  - [q1, b, any, q2, pop]
`))
	fmt.Println(err)
	// Output:
	// g.yaml:9: transition from "q1" on "b" with top any overlaps the one on line 8 (the PDA must be deterministic)
}
