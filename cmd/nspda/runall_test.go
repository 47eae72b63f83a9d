package main

import (
	"context"
	"testing"

	"github.com/nspda/nspda/experiment"
)

// TestRunAllStopsOnError: a failing run is reported and returned.
func TestRunAllStopsOnError(t *testing.T) {
	bad := smallConfig()
	bad.Grammar = "no-such-grammar"
	err := runAll(context.Background(), experiment.Store{Dir: t.TempDir()}, []experiment.Config{bad}, 1, nil)
	if err == nil {
		t.Fatal("a run of an unknown grammar succeeded")
	}
}
