package modzip

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// maxZip bounds the module zip: users download it with every `go install`.
const maxZip = 50 << 20

// TestModuleZip builds the module zip from the tracked files at HEAD, as the
// module proxy would, checks its size and that the result store is not in it,
// then unpacks it and builds cmd/nspda from that copy alone.
func TestModuleZip(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command from a copy of the module (-short)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Run(); err != nil {
		t.Skip("not a git checkout with a commit")
	}
	var buf bytes.Buffer
	mv := module.Version{Path: "github.com/nspda/nspda", Version: "v0.0.0-test"}
	if err := modzip.CreateFromVCS(&buf, mv, root, "HEAD", ""); err != nil {
		t.Fatalf("module zip: %v", err)
	}
	size := buf.Len()
	t.Logf("module zip: %.1f MiB", float64(size)/(1<<20))
	if size > maxZip {
		t.Fatalf("module zip is %.1f MiB, over %d MiB", float64(size)/(1<<20), maxZip>>20)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(size))
	if err != nil {
		t.Fatal(err)
	}
	prefix := mv.String() + "/"
	for _, f := range zr.File {
		if strings.HasPrefix(strings.TrimPrefix(f.Name, prefix), "results/") {
			t.Fatalf("module zip holds %s: the result store must stay out of the module", f.Name)
		}
	}
	dir := t.TempDir()
	zipPath := filepath.Join(dir, "m.zip")
	if err := os.WriteFile(zipPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "src")
	if err := modzip.Unzip(src, mv, zipPath); err != nil {
		t.Fatalf("unzip: %v", err)
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "nspda"), "./cmd/nspda")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/nspda from the module zip's files: %v\n%s", err, out)
	}
}
