package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemovedSettings: a stored configuration that gives a removed setting
// at its zero value migrates to the key it was stored under; one that sets
// it is refused, from a config.json, --opt or a recipe file, with the
// setting's name and its schema; and no removed key is a setting or an
// option again.
func TestRemovedSettings(t *testing.T) {
	stored := filepath.Join(storedResults, "779e47d61e01832d", ConfigFile)
	b, err := os.ReadFile(stored)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Migrate(b)
	if err != nil || plain.Key() != "779e47d61e01832d" {
		t.Fatalf("%s migrates to key %s (%v)", stored, plain.Key(), err)
	}
	body := strings.TrimSuffix(strings.TrimSpace(string(b)), "}")
	for _, r := range Removed {
		zero := map[string]string{"economy_weight": "0", "init_scale": "0", "plateau": "0", "first_patience": "0", "probe_long": "0"}[r.Key]
		set := "3"
		if zero == "" {
			zero, set = `""`, `"luby"`
		}
		c, err := Migrate([]byte(body + `,"` + r.Key + `":` + zero + "}"))
		if err != nil || c.Key() != plain.Key() {
			t.Errorf("%s at %s: key %s, want %s (%v)", r.Key, zero, c.Key(), plain.Key(), err)
		}
		_, err = Migrate([]byte(body + `,"` + r.Key + `":` + set + "}"))
		if err == nil || !strings.Contains(err.Error(), r.Key+" (") || !strings.Contains(err.Error(), "schema 2") {
			t.Errorf("%s set: %v, want a refusal naming it and schema 2", r.Key, err)
		}
		if IsSetting(r.Key) {
			t.Errorf("%s is a setting again: take it out of Removed, or give it a new key", r.Key)
		}
		_, err = Build("default", []Setting{{Name: "--opt " + r.Key, Key: r.Key, Value: set}})
		if err == nil || !strings.Contains(err.Error(), "--opt "+r.Key+": "+r.Key+" (") {
			t.Errorf("--opt %s=%s: %v", r.Key, set, err)
		}
		p := filepath.Join(t.TempDir(), "r.yaml")
		if err := os.WriteFile(p, []byte("base: default\nset:\n  "+r.Key+": "+set+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ReadRecipeFile(p); err == nil || !strings.Contains(err.Error(), p+":3: "+r.Key) {
			t.Errorf("recipe file setting %s: %v", r.Key, err)
		}
	}
}
