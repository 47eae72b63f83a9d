//go:build unix

package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// refused checks that Write(path) fails with one line starting with
// path + ": " + want, without calling fill.
func refused(t *testing.T, path, want string) {
	t.Helper()
	called := false
	err := Write(path, func(io.Writer) error { called = true; return nil })
	if err == nil || !strings.HasPrefix(err.Error(), path+": "+want) || strings.Contains(err.Error(), "\n") || called {
		t.Errorf("%s: error %v (fill called: %v), want one line starting %q", path, err, called, path+": "+want)
	}
}

// TestRefusesSpecialFiles: a FIFO, a directory, a device, or a link to one
// is refused (a rename would have replaced it by a regular file), and is
// still there, of its kind, afterwards.
func TestRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	toFifo := filepath.Join(dir, "to-fifo")
	if err := os.Symlink("fifo", toFifo); err != nil {
		t.Fatal(err)
	}
	refused(t, fifo, "is a named pipe (FIFO)")
	refused(t, sub, "is a directory")
	refused(t, toFifo, "is a symbolic link to "+fifo+", a named pipe (FIFO)")
	for _, p := range []string{fifo, toFifo} {
		if fi, err := os.Stat(p); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("%s no longer leads to the FIFO: %v, %v", p, fi, err)
		}
	}
	if fi, err := os.Lstat(sub); err != nil || !fi.IsDir() {
		t.Errorf("the directory is gone or changed: %v, %v", fi, err)
	}
	// A device of our own (as root), harmless to replace were the refusal
	// missing.
	dev := filepath.Join(dir, "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		refused(t, dev, "is a character device")
		if fi, err := os.Lstat(dev); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
			t.Errorf("the device node is gone or changed: %v, %v", fi, err)
		}
	} else if !errors.Is(err, syscall.EPERM) {
		t.Fatal(err)
	}
}

// TestRefusesLinkToDevNull: --out through a link to /dev/null is refused.
// The test writes only if destination refuses first, so that no version of
// Write, with or without the refusal, can replace /dev/null here: without
// it, the old Write replaced the link itself.
func TestRefusesLinkToDevNull(t *testing.T) {
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Skip("no /dev/null character device")
	}
	link := filepath.Join(t.TempDir(), "out.jsonl")
	if err := os.Symlink("/dev/null", link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := destination(link); err == nil {
		t.Fatalf("destination(%s) accepts a link to /dev/null; not writing", link)
	}
	refused(t, link, "is a symbolic link to /dev/null, a character device")
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a character device: %v, %v", fi, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi, err)
	}
}

// TestKeepsModeFollowsLinks: a replaced file keeps its mode (0600 stays
// 0600); a write through a link (relative, absolute, a chain, or dangling)
// replaces the file the link leads to and keeps the link.
func TestKeepsModeFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(secret, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(secret); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after replacing a 0600 file: %v, %v", fi, err)
	}
	other := t.TempDir()
	target := filepath.Join(other, "target")
	if err := os.WriteFile(target, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"rel": "../" + filepath.Base(other) + "/target", "abs": target, "chain": "abs", "dangling": "missing"}
	sub := filepath.Join(dir, "links")
	if err := os.Symlink(other, filepath.Join(dir, filepath.Base(other))); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, to := range links {
		if err := os.Symlink(to, filepath.Join(sub, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"rel", "abs", "chain"} {
		content := "via " + name
		if err := WriteFile(filepath.Join(sub, name), []byte(content)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(target); string(b) != content {
			t.Errorf("after a write via %s the target holds %q", name, b)
		}
		if fi, err := os.Lstat(filepath.Join(sub, name)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link %s was replaced: %v, %v", name, fi, err)
		}
	}
	if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("target mode %v, %v; want 0640 kept", fi, err)
	}
	if err := WriteFile(filepath.Join(sub, "dangling"), []byte("made")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(sub, "missing")); err != nil || string(b) != "made" {
		t.Errorf("a write via a dangling link: %q, %v; want the file it names created", b, err)
	}
	for _, d := range []string{sub, other} {
		for _, e := range mustReadDir(t, d) {
			if strings.Contains(e, ".tmp") {
				t.Errorf("temporary file %s left in %s", e, d)
			}
		}
	}
}

// TestLinkLoop: a loop of links is refused with one line.
func TestLinkLoop(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink("b", a)
	os.Symlink("a", b)
	if err := WriteFile(a, nil); err == nil || !strings.HasPrefix(err.Error(), a+": ") {
		t.Errorf("error %v, want one naming %s", err, a)
	}
}

func mustReadDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
