// Package testutil holds small helpers shared by the tests of several
// packages.
package testutil

import (
	"os"
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
