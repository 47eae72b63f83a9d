package limits

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	if err := Check("stacks", Stacks, Stacks); err != nil {
		t.Errorf("at the bound: %v", err)
	}
	err := Check("stacks", Stacks+1, Stacks)
	if err == nil || !strings.Contains(err.Error(), "limit of 64") {
		t.Errorf("above the bound: %v, want the bound named", err)
	}
}

func TestSizes(t *testing.T) {
	for _, c := range []struct {
		hidden, stacks int
		ok             bool
	}{{0, 0, true}, {Units, Stacks, true}, {Units + 1, 0, false}, {1, Stacks + 1, false}, {-3, 0, false}, {1, 100000, false}} {
		if err := Sizes(c.hidden, c.stacks); (err == nil) != c.ok {
			t.Errorf("Sizes(%d, %d) = %v", c.hidden, c.stacks, err)
		}
	}
}

func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(path, "file", 5); err != nil || string(b) != "12345" {
		t.Errorf("at the bound: %q, %v", b, err)
	}
	if _, err := ReadFile(path, "spec file", 4); err == nil || !strings.Contains(err.Error(), "limit of 4 bytes") {
		t.Errorf("above the bound: %v", err)
	}
}
