package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nspda/nspda/internal/testutil"
)

// TestWriteFile: a successful write creates and then replaces the file with
// mode 0644 and leaves no temporary file behind.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.json")
	for _, content := range []string{"first\n", "second, longer\n", ""} {
		if err := WriteFile(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != content {
			t.Errorf("file holds %q, want %q", got, content)
		}
		if names := testutil.DirNames(t, dir); len(names) != 1 || names[0] != "model.json" {
			t.Errorf("directory holds %q, want only model.json", names)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
}

// TestWriteFails: when fill fails midway, the old file is kept unchanged, the
// temporary file is removed, and the error names the path and wraps fill's.
func TestWriteFails(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "checkpoint.json")
	if err := WriteFile(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk on fire")
	err := Write(path, func(w io.Writer) error {
		if _, err := io.WriteString(w, "half a new fi"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v: want it to wrap %v and name %s", err, boom, path)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("after a failed write the file holds %q, want %q", got, "old")
	}
	if names := testutil.DirNames(t, dir); len(names) != 1 || names[0] != "checkpoint.json" {
		t.Errorf("directory holds %q, want only checkpoint.json", names)
	}
}

// TestWriteMissingDir: a write into a directory that does not exist fails
// with an error that names the destination, not a temporary file.
func TestWriteMissingDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "file")
	err := WriteFile(path, []byte("x"))
	if err == nil || !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), path+": ") {
		t.Errorf("error %v: want a not-exist error starting with %s", err, path)
	}
}

// TestNewDirsRemoveEmpty: NewDirs names exactly the directories MkdirAll
// creates, and RemoveEmpty removes them again, but not one that holds a file.
func TestNewDirsRemoveEmpty(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b", "c")
	dirs := NewDirs(deep)
	want := []string{deep, filepath.Join(root, "a", "b"), filepath.Join(root, "a")}
	if !slices.Equal(dirs, want) {
		t.Fatalf("NewDirs = %v, want %v", dirs, want)
	}
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := NewDirs(deep); len(got) != 0 {
		t.Errorf("NewDirs of an existing directory = %v, want none", got)
	}
	if err := os.WriteFile(filepath.Join(root, "a", "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	RemoveEmpty(dirs)
	if _, err := os.Stat(filepath.Join(root, "a", "b")); !os.IsNotExist(err) {
		t.Errorf("a/b still exists (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(root, "a", "keep")); err != nil {
		t.Errorf("a holds a file and must stay: %v", err)
	}
}
