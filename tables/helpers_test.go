package tables

import (
	"os"
	"testing"

	"github.com/nspda/nspda/experiment"
)

// small is a configuration that trains in about a second.
func small() experiment.Config {
	c := experiment.Defaults()
	c.Positives, c.Negatives = 60, 60
	c.MaxEpochs = 6
	c.Curriculum = "standard"
	c.Algo = "bptt"
	c.Tests = []string{"test60"}
	return c
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
