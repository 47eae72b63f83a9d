package grammar

import (
	"slices"
	"testing"
)

// completion searches breadth-first for the shortest input that takes the
// configuration after prefix to acceptance, over configurations whose stack
// is at most depth deep and inputs of at most maxLen symbols. It is an
// independent, bounded check of Oracle's viability.
func completion(p *PDA, prefix []int, depth, maxLen int) ([]int, bool) {
	c := Config{State: p.Start}
	for _, l := range prefix {
		if _, ok := p.Step(&c, l); !ok {
			return nil, false
		}
	}
	type node struct {
		c   Config
		suf []int
	}
	key := func(c Config) string { return string(rune(c.State)) + "|" + p.Decode(c.Stack) }
	seen := map[string]bool{key(c): true}
	queue := []node{{c, nil}}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if p.Accepting(n.c) {
			return n.suf, true
		}
		if len(n.suf) == maxLen {
			continue
		}
		for a := 0; a < p.L(); a++ {
			c2 := Config{State: n.c.State, Stack: slices.Clone(n.c.Stack)}
			if _, ok := p.Step(&c2, a); !ok || len(c2.Stack) > depth || seen[key(c2)] {
				continue
			}
			seen[key(c2)] = true
			queue = append(queue, node{c2, append(slices.Clone(n.suf), a)})
		}
	}
	return nil, false
}

// checkOracle compares Oracle's targets with the bounded search on every
// string up to maxLen, and checks each witness with the recognizer.
func checkOracle(t *testing.T, p *PDA, recognize func(string) bool, maxLen int) {
	t.Helper()
	o, err := NewOracle(p)
	if err != nil {
		t.Fatal(err)
	}
	L := p.L()
	var walk func(syms []int)
	walk = func(syms []int) {
		tg := o.Targets(syms)
		n := len(syms)
		if got, want := tg.Viable[n], p.Run(syms); got != want {
			t.Fatalf("%s %q: Viable[n] = %v, membership %v", p.Name, p.Decode(syms), got, want)
		}
		for i := 0; i < n; i++ {
			pre := syms[:i+1]
			w, ok := completion(p, pre, len(pre)+4, 3*len(pre)+6)
			if tg.Viable[i] != ok {
				t.Fatalf("%s prefix %q: Viable = %v, search found a completion: %v", p.Name, p.Decode(pre), tg.Viable[i], ok)
			}
			if ok && recognize != nil && !recognize(p.Decode(append(slices.Clone(pre), w...))) {
				t.Fatalf("%s: witness %q + %q is not a member", p.Name, p.Decode(pre), p.Decode(w))
			}
			for a := 0; a <= L; a++ {
				var want bool
				if a == L {
					want = p.Run(pre)
				} else {
					_, want = completion(p, append(slices.Clone(pre), a), len(pre)+5, 3*len(pre)+9)
				}
				if got := tg.Next[i*(L+1)+a]; got != want {
					t.Fatalf("%s prefix %q: Next[%d] = %v, want %v", p.Name, p.Decode(pre), a, got, want)
				}
			}
			c := Config{State: p.Start}
			var op Op = -1
			for j, l := range pre {
				tr, ok := p.Step(&c, l)
				if j == i && ok {
					op = tr.Op
				}
			}
			if tg.Ops[i] != op {
				t.Fatalf("%s prefix %q: Ops = %v, want %v", p.Name, p.Decode(pre), tg.Ops[i], op)
			}
		}
		if n == maxLen {
			return
		}
		for a := 0; a < L; a++ {
			walk(append(slices.Clone(syms), a))
		}
	}
	walk(nil)
}

func TestOracleBuiltins(t *testing.T) {
	maxLen := 7
	if testing.Short() {
		maxLen = 5
	}
	for _, name := range Names() {
		lang, _ := Builtin(name)
		t.Run(name, func(t *testing.T) { checkOracle(t, lang.PDA, lang.Recognize, maxLen) })
	}
}

// TestOracleTraps covers what a dead-state test cannot see: transitions that
// exist but lead where acceptance is unreachable (a trap state, and a push
// that can never be popped under an empty-stack acceptance).
func TestOracleTraps(t *testing.T) {
	p := parseFile(t, specPath("small/traps"))
	checkOracle(t, p, nil, 6)
	o, _ := NewOracle(p)
	tg := o.Targets([]int{2, 0}) // "ca": alive in the trap, not viable
	if tg.Viable[0] || tg.Viable[1] || tg.Ops[1] != Push {
		t.Fatalf("trap: %+v", tg)
	}
	tg = o.Targets([]int{0, 2}) // "ac": c pushed above a can never be popped
	if !tg.Viable[0] || tg.Viable[1] {
		t.Fatalf("unpoppable push: %+v", tg)
	}
}

func TestOracleFinalStateAcceptance(t *testing.T) {
	// Acceptance by state alone: "a" then anything over a stack that is never emptied.
	p := parseFile(t, specPath("small/fs"))
	checkOracle(t, p, nil, 7)
}

func TestOracleRefusesHugePDA(t *testing.T) {
	states := make([]string, MaxOracleStates+1)
	accept := make([]bool, len(states))
	var tr []Transition
	for i := range states {
		states[i] = "q" + string(rune('0'+i%10)) + string(rune(i))
		if i > 0 {
			tr = append(tr, Transition{From: i - 1, Input: 0, Top: TopAny, To: i, Op: Noop})
		}
	}
	accept[len(states)-1] = true
	p, err := New(PDA{Name: "chain", Alphabet: []rune{'a'}, States: states, Accept: accept, Transitions: tr})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewOracle(p); err == nil {
		t.Fatal("NewOracle accepted a PDA above MaxOracleStates")
	}
}
