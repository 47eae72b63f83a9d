package extract

import (
	"errors"
	"strings"
	"testing"

	"github.com/nspda/nspda/grammar"
	"github.com/nspda/nspda/model/nspda"
	"github.com/nspda/nspda/nn/nntest"
	"github.com/nspda/nspda/program"
)

// TestAcceptanceForms: the extracted PDA uses the simplest form of
// acceptance the network fits, and accept_with_top only when a state's
// verdict depends on the top.
func TestAcceptanceForms(t *testing.T) {
	for _, tt := range []struct {
		lang string
		want Acceptance
	}{
		{"anbn", ByEmptyStack},
		{"dyck2", ByEmptyStack},
		{"../grammar/testdata/topaccept.yaml", ByTop},
	} {
		lang, err := grammar.Load(tt.lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, order := range []nspda.Order{nspda.Second, nspda.Third} {
			prog, err := program.Compile(lang.PDA, program.Options{Order: order})
			if err != nil {
				t.Fatal(err)
			}
			r := Extract(prog.Model(), Options{})
			if r.Err != nil {
				t.Fatalf("%s order %d: %s", tt.lang, order, r.Message)
			}
			if r.Acceptance != tt.want {
				t.Errorf("%s order %d: acceptance by %s, want by %s", tt.lang, order, r.Acceptance, tt.want)
			}
			hasTops := false
			for _, tops := range r.PDA.AcceptTops {
				hasTops = hasTops || len(tops) > 0
			}
			if hasTops != (tt.want == ByTop) || r.PDA.EmptyStack != (tt.want == ByEmptyStack) {
				t.Errorf("%s order %d: by %s with accept_with_top %v, accept_empty_stack %v", tt.lang, order, r.Acceptance, r.PDA.AcceptTops, r.PDA.EmptyStack)
			}
		}
	}
}

// randomNet is an NSPDA with random weights: its control is small but
// arbitrary, and its verdict at the end marker usually depends on the top.
func randomNet(t *testing.T, seed uint64, order nspda.Order, L, J int) *nspda.Model {
	t.Helper()
	m, err := nspda.New(nspda.Shape{Order: order, L: L, J: J, A: L}, []rune("abc")[:L])
	if err != nil {
		t.Fatal(err)
	}
	nntest.FillNormal(m.Params, seed, 8)
	return m
}

// TestRandomNetworksExact: on random networks, whose acceptance mostly
// depends on the top, extraction gives a PDA (none is refused for its
// acceptance) that agrees with the network on every string up to length 8,
// and that reads back from its spec file unchanged.
func TestRandomNetworksExact(t *testing.T) {
	byTop, refused := 0, 0
	for seed := uint64(1); seed <= 60; seed++ {
		order := nspda.Third
		if seed%2 == 0 {
			order = nspda.Second
		}
		L := 2 + int(seed%3)/2
		m := randomNet(t, seed, order, L, 3+int(seed%4))
		r := Extract(m, Options{MaxStates: 500})
		if errors.Is(r.Err, ErrTooManyStates) {
			refused++
			continue
		}
		if r.Err != nil {
			t.Fatalf("seed %d: %s", seed, r.Message)
		}
		if r.Acceptance == ByTop {
			byTop++
		}
		maxLen := map[int]int{2: 8, 3: 6}[L]
		c := Exhaustive(m, 1, r.PDA, nil, maxLen)
		if len(c.NetworkCounter) > 0 {
			t.Fatalf("seed %d (order %d): the extracted PDA disagrees with the network on %v\n%s", seed, order, c.NetworkCounter, r.PDA.MarshalSpec())
		}
		again, err := grammar.Parse("x.yaml", r.PDA.MarshalSpec())
		if err != nil {
			t.Fatalf("seed %d: the written PDA does not parse: %v\n%s", seed, err, r.PDA.MarshalSpec())
		}
		c = Exhaustive(m, 1, again, nil, maxLen)
		if len(c.NetworkCounter) > 0 {
			t.Fatalf("seed %d: the PDA read back disagrees with the network on %v", seed, c.NetworkCounter)
		}
	}
	if byTop == 0 {
		t.Error("no random network needed acceptance by top; the test does not test it")
	}
	t.Logf("%d of 60 random networks accept by state and top, %d refused (more than 500 states)", byTop, refused)
}

// TestRefusesTooManyStates: a network whose control exceeds MaxStates gets
// no PDA, ErrTooManyStates, a message and its counts.
func TestRefusesTooManyStates(t *testing.T) {
	lang, _ := grammar.Builtin("anbncbmam")
	prog, err := program.Compile(lang.PDA, program.Options{Order: nspda.Second})
	if err != nil {
		t.Fatal(err)
	}
	r, rep, err := Check(prog.Model(), CheckOptions{Options: Options{MaxStates: 3}, MaxLen: 4, Target: lang})
	if err != nil {
		t.Fatal(err)
	}
	if r.PDA != nil || !errors.Is(r.Err, ErrTooManyStates) || !strings.Contains(r.Message, "no PDA was written") {
		t.Fatalf("PDA %v, error %v, message %q", r.PDA, r.Err, r.Message)
	}
	if rep.OK || rep.Message != r.Message || rep.Explored == 0 || rep.Comparison != nil {
		t.Errorf("partial report %+v", rep)
	}
}
