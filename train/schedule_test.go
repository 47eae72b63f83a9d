package train

import (
	"fmt"
	"slices"
	"testing"
)

// TestStarts: a run's plan lists its long starts, probes, polish and final
// starts in order, each with the patience, neutral symbol and stack its
// phase gives it; without Patience there is one start, without Polish the
// final starts follow the probes.
func TestStarts(t *testing.T) {
	set := Settings{Patience: 20, Restarts: 2, Probes: 3, ProbePatience: 3, Polish: 5, Final: 2, MaxEpochs: 7,
		NeutralSymbols: 2, NeutralPatience: 50, NeutralTwoSided: true, SoftStackAlternate: true}
	var got []string
	for s := range set.Starts() {
		got = append(got, fmt.Sprintf("%d:%d p%d n%d own=%v two=%v final=%v soft=%v best=%v sgd=%v e%d",
			s.Kind, s.Index, s.Patience, s.Neutral, s.Own, s.TwoSided, s.FinalPrior, s.Soft, s.FromBest, s.SGD, s.Epochs))
	}
	want := []string{
		"0:0 p20 n-1 own=false two=false final=false soft=false best=false sgd=false e0",
		"0:1 p50 n0 own=true two=true final=false soft=true best=false sgd=false e0",
		"0:2 p50 n1 own=true two=true final=false soft=false best=false sgd=false e0",
		"1:3 p3 n-1 own=false two=false final=false soft=true best=false sgd=false e0",
		"1:4 p3 n-1 own=false two=false final=false soft=false best=false sgd=false e0",
		"1:5 p3 n-1 own=false two=false final=false soft=true best=false sgd=false e0",
		"2:5 p5 n-1 own=false two=false final=false soft=false best=true sgd=true e7",
		"3:6 p50 n0 own=true two=true final=true soft=false best=false sgd=false e0",
		"3:7 p50 n1 own=true two=true final=true soft=true best=false sgd=false e0",
	}
	if !slices.Equal(got, want) {
		t.Errorf("the plan:\n%s\nwant\n%s", got, want)
	}
	kinds := func(set Settings) (ks []StartKind) {
		for s := range set.Starts() {
			ks = append(ks, s.Kind)
		}
		return ks
	}
	if set.Polish = 0; !slices.Equal(kinds(set), []StartKind{LongStart, LongStart, LongStart, ProbeStart, ProbeStart, ProbeStart, FinalStart, FinalStart}) {
		t.Errorf("without Polish: %v", kinds(set))
	}
	if set.Patience = 0; !slices.Equal(kinds(set), []StartKind{LongStart}) {
		t.Errorf("without Patience: %v", kinds(set))
	}
	for range set.Starts() {
		break // a plan stops when asked
	}
}

// TestCurrentStart: a checkpoint is in the start its counters name: the
// polish between PolishFrom and FinalFrom, else start Restart.
func TestCurrentStart(t *testing.T) {
	sc := newSchedule(Settings{Patience: 20, Restarts: 2, Probes: 3, ProbePatience: 3, Polish: 5, Final: 2})
	for _, tc := range []struct {
		cp   Checkpoint
		kind StartKind
	}{
		{Checkpoint{Restart: 2}, LongStart},
		{Checkpoint{Restart: 4}, ProbeStart},
		{Checkpoint{Restart: 5, PolishFrom: 30}, PolishStart},
		{Checkpoint{Restart: 6, PolishFrom: 30, FinalFrom: 40}, FinalStart},
	} {
		if s := sc.current(&tc.cp); s.Kind != tc.kind || s.Index != tc.cp.Restart {
			t.Errorf("%+v: in start %d of kind %d, want %d", tc.cp, s.Index, s.Kind, tc.kind)
		}
	}
}
