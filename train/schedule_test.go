package train

import (
	"fmt"
	"slices"
	"strings"
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

// TestScheduleTrace pins when a run's starts begin: the checkpoint after
// each epoch (its start's number, the epochs the polish and the final
// starts began after, whether the start has finished) and the starts
// whose weights were drawn, for a run whose starts all end, one that
// MaxEpochs cuts short, and one whose final starts run out of epochs as
// one of them finishes; and a run resumed from any of its checkpoints
// ends with the same checkpoints and weights.
func TestScheduleTrace(t *testing.T) {
	for _, tc := range []struct {
		max, final int
		want       string
	}{
		{40, 2, "1:r0 2:r0 3:r1 4:r1 5:r1 6:r2 7:r3 8:r3 9:r4 10:r4F 11:r4p11 12:r5p11f13 13:r5p11f13 14:r5p11f13 15:r6p11f13 16:r6p11f13 17:r6p11f13 18:r6p11f13F  init [1 2 3 4 5 6]"},
		{5, 2, "1:r0 2:r0 3:r1 4:r1 5:r1 6:r4p6 7:r5p6f8 8:r5p6f8 9:r5p6f8 10:r6p6f8 11:r6p6f8 12:r6p6f8  init [1 5 6]"},
		{9, 4, "1:r0 2:r0 3:r1 4:r1 5:r1 6:r2 7:r3 8:r3 9:r4 10:r4p10 11:r5p10f12 12:r5p10f12 13:r5p10f12 14:r6p10f12 15:r6p10f12 16:r6p10f12 17:r7p10f12 18:r7p10f12 19:r7p10f12 20:r7p10f12F  init [1 2 3 4 5 6 7]"},
	} {
		set := twinSettings(0.02, tc.max)
		set.Probes, set.ProbePatience, set.Polish, set.Final = 3, 1, 2, tc.final
		var inits []int
		l, _, params, err := twinRun(t, set, &inits, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := trace(l.cps) + fmt.Sprint(" init ", inits); got != tc.want {
			t.Errorf("MaxEpochs %d: %s\nwant %s", tc.max, got, tc.want)
		}
		for k, cp := range l.cps[:len(l.cps)-1] {
			from := *cp
			rl, _, rparams, err := twinRun(t, set, nil, &from, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := trace(rl.cps), trace(l.cps[k+1:]); got != want || !slices.Equal(rparams, params) {
				t.Fatalf("MaxEpochs %d, resumed after epoch %d: %s\nwant %s (same weights: %v)", tc.max, cp.Epoch, got, want, slices.Equal(rparams, params))
			}
		}
	}
}

// trace is the start each checkpoint of cps is in, by epoch.
func trace(cps []*Checkpoint) string {
	var b strings.Builder
	for _, cp := range cps {
		fmt.Fprintf(&b, "%d:r%d", cp.Epoch, cp.Restart)
		if cp.PolishFrom > 0 {
			fmt.Fprintf(&b, "p%d", cp.PolishFrom)
		}
		if cp.FinalFrom > 0 {
			fmt.Fprintf(&b, "f%d", cp.FinalFrom)
		}
		if cp.Finished {
			b.WriteString("F")
		}
		b.WriteString(" ")
	}
	return b.String()
}
