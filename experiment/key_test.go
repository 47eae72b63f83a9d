package experiment

import (
	"path/filepath"
	"testing"
)

// storedResults is the repository's result store, relative to this package.
const storedResults = "../results"

// TestStoredKeys: every stored run's config.json, read the way a resumed run
// reads it (Migrate, from the schema that wrote it), hashes to the name of
// its directory. A change to Config's JSON
// (a field's name, order or omitempty) would orphan every stored result; this
// test says so.
func TestStoredKeys(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(storedResults, "*", ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatalf("%s holds no %s", storedResults, ConfigFile)
	}
	for _, path := range dirs {
		dir := filepath.Dir(path)
		cfg, err := readConfig(dir)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if got, want := cfg.Key(), filepath.Base(dir); got != want {
			t.Errorf("%s: key %s, want the directory's name %s", path, got, want)
		}
	}
	t.Logf("%d stored configurations", len(dirs))
}
