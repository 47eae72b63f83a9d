// Package testutil holds small helpers shared by the tests of several
// packages.
package testutil

import (
	"os"
	"runtime"
	"testing"
)

// DirNames lists the names of dir's entries, sorted, failing t if dir cannot
// be read.
func DirNames(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// Allocated returns the bytes allocated while f runs (the growth of
// runtime.MemStats.TotalAlloc, which counts every goroutine's allocations).
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
