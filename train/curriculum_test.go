package train

import (
	"encoding/json"
	"testing"
)

// TestTwoIL walks Algorithm 1: 14 one-pass phases, stage 1's random phase
// until validation is perfect, then 21 one-pass phases of stage 2 and its
// random phase until validation and training are perfect.
func TestTwoIL(t *testing.T) {
	c, err := NewCurriculum("2il", []int{1, 5, 21, 9})
	if err != nil {
		t.Fatal(err)
	}
	bad, good := &Report{ValidAcc: 0.9, TrainAcc: 0.9}, &Report{ValidAcc: 1, TrainAcc: 1}
	var phases []Phase
	last := (*Report)(nil)
	for i := 0; i < 100; i++ {
		ph, ok := c.Next(last)
		if !ok {
			break
		}
		phases = append(phases, ph)
		last = bad
		if len(phases) == 17 || len(phases) == 17+21+2 {
			last = good
		}
	}
	for i := 0; i < 14; i++ {
		if p := phases[i]; p.Stage != 1 || p.MaxLen != i+1 || !p.Stochastic || p.ValidMax != 14 {
			t.Fatalf("phase %d = %+v", i, p)
		}
	}
	for i := 14; i < 17; i++ {
		if p := phases[i]; p.Stage != 1 || p.MaxLen != 14 {
			t.Fatalf("phase %d = %+v, want stage 1 random phase", i, p)
		}
	}
	for i := 17; i < 17+21; i++ {
		if p := phases[i]; p.Stage != 2 || p.MaxLen != i-16 || p.Stochastic || !p.WeightNoise {
			t.Fatalf("phase %d = %+v", i, p)
		}
	}
	if n := len(phases); n != 17+21+2 {
		t.Fatalf("%d phases, want %d", n, 17+21+2)
	}
	// The state survives a JSON round trip (checkpoints).
	b, _ := json.Marshal(c)
	var back TwoIL
	if err := json.Unmarshal(b, &back); err != nil || back != *c.(*TwoIL) {
		t.Fatalf("round trip: %+v vs %+v (%v)", back, c, err)
	}
}

// TestTwoILCaps checks Algorithm 1's caps on a run that never classifies
// its validation set: stage 1 lasts exactly Cap1 = 200 epochs (its 14
// one-pass phases included), stage 2 exactly Cap2 = 350, and then the
// curriculum ends.
func TestTwoILCaps(t *testing.T) {
	c, err := NewCurriculum("2il", []int{3, 21})
	if err != nil {
		t.Fatal(err)
	}
	bad := &Report{ValidAcc: 0.5, TrainAcc: 0.5}
	stages := map[int]int{}
	var last *Report
	for n := 0; ; n++ {
		if n > 1000 {
			t.Fatal("the curriculum never ended")
		}
		ph, ok := c.Next(last)
		if !ok {
			break
		}
		stages[ph.Stage]++
		last = bad
	}
	if stages[1] != 200 || stages[2] != 350 || len(stages) != 2 {
		t.Fatalf("epochs by stage %v, want 200 in stage 1 and 350 in stage 2", stages)
	}
}

func TestILAdvances(t *testing.T) {
	c, _ := NewCurriculum("il", []int{3, 1, 2})
	ph, _ := c.Next(nil)
	if ph.MaxLen != 1 {
		t.Fatalf("first phase %+v", ph)
	}
	ph, _ = c.Next(&Report{SubsetAcc: 1})
	if ph.MaxLen != 2 {
		t.Fatalf("after a learned subset: %+v", ph)
	}
	for i := 0; i < 25; i++ {
		ph, _ = c.Next(&Report{SubsetAcc: 0.5})
	}
	if ph.MaxLen != 3 {
		t.Fatalf("after the cap: %+v", ph)
	}
	if _, err := NewCurriculum("bogus", []int{1}); err == nil {
		t.Error("unknown curriculum accepted")
	}
}
