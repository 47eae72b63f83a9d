package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/nspda/nspda/evaluate"
)

// storedRun is a finished run of the repository's result store: a
// third-order NSPDA on Dyck-2 (J = 5) that errs on every test set.
const storedRun = "../../results/00f398d9dd5961a6"

// TestEvalWorkers: eval gives the same results on one goroutine as on
// three, and those are the results the run stored when it finished
// (evaluated then one string at a time).
func TestEvalWorkers(t *testing.T) {
	var sum struct {
		Sets []evaluate.Result `json:"sets"`
	}
	b, err := os.ReadFile(filepath.Join(storedRun, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []string{"1", "3"} {
		out, errs, code := cli(t, "eval", "--model", filepath.Join(storedRun, "model.json"), "--grammar", "dyck2", "--workers", workers, "--json")
		if code != 0 {
			t.Fatal(errs)
		}
		var got struct {
			Sets []evaluate.Result `json:"sets"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Sets, sum.Sets) || sum.Sets[0].Errors == 0 {
			t.Errorf("--workers %s: %+v\nstored: %+v", workers, got.Sets, sum.Sets)
		}
	}
}
