package experiment

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCollectFailedLeavesNoStore: a collect that copies nothing into a
// store it created (a --from that does not exist, or only unreadable runs)
// removes the store again; it used to leave an empty store directory. A
// store that existed before is kept.
func TestCollectFailedLeavesNoStore(t *testing.T) {
	root := t.TempDir()
	from := filepath.Join(root, "from")
	bad := fakeRun(t, from, Defaults())
	os.WriteFile(filepath.Join(bad, SummaryFile), []byte("{"), 0o644)
	for _, src := range []string{filepath.Join(root, "missing"), from} {
		store := filepath.Join(root, "new", "store")
		rep, err := Store{Dir: store}.Collect(src)
		if err == nil && len(rep.Failed) == 0 {
			t.Fatalf("collect from %s: %+v; want it to fail", src, rep)
		}
		if _, err := os.Stat(filepath.Join(root, "new")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("collect from %s left %s behind (%v)", src, filepath.Join(root, "new"), err)
		}
	}
	kept := filepath.Join(root, "kept")
	os.Mkdir(kept, 0o755)
	Store{Dir: kept}.Collect(from)
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("a failed collect removed the store it was given: %v", err)
	}
}

// TestCollectSymlinkedSummary: a run whose summary.json (or another file)
// is a symbolic link is refused with one line naming the file; it used to
// be copied without the linked file, and copied again on every collect.
func TestCollectSymlinkedSummary(t *testing.T) {
	root := t.TempDir()
	from, store := filepath.Join(root, "from"), filepath.Join(root, "store")
	cfg := Defaults()
	run := fakeRun(t, from, cfg)
	real := filepath.Join(root, "summary.json")
	if err := os.Rename(filepath.Join(run, SummaryFile), real); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(run, SummaryFile)); err != nil {
		t.Fatal(err)
	}
	cfg.Seed = 3
	dangling := fakeRun(t, from, cfg)
	os.Remove(filepath.Join(dangling, SummaryFile))
	os.Symlink("nowhere", filepath.Join(dangling, SummaryFile))
	cfg.Seed = 2
	fakeRun(t, from, cfg)
	for range 2 {
		rep, err := Store{Dir: store}.Collect(from)
		if err != nil || len(rep.Failed) != 2 {
			t.Fatalf("Collect: %+v, %v; want the two linked runs refused", rep, err)
		}
		msgs := rep.Failed[0].Error() + "\n" + rep.Failed[1].Error()
		for _, d := range []string{run, dangling} {
			if want := filepath.Join(d, SummaryFile) + ": is a symbolic link"; !strings.Contains(msgs, want) {
				t.Errorf("errors %q: want a line starting %q", msgs, want)
			}
		}
		if strings.Count(msgs, "\n") != 1 {
			t.Errorf("errors %q: want one line each", msgs)
		}
		if _, err := os.Stat(filepath.Join(store, cfg.Key(), SummaryFile)); err != nil {
			t.Errorf("the other run was not collected: %v", err)
		}
		if rep.Copied+rep.Replaced+rep.Identical != 1 {
			t.Errorf("report %+v: want the other run alone", rep)
		}
	}
	if _, err := os.Stat(filepath.Join(store, filepath.Base(run))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the linked run was collected: %v", err)
	}
}

// TestCollectSkipsLockFile: collect copies a run's files, not its lock
// (nor a temporary file left by a kill).
func TestCollectSkipsLockFile(t *testing.T) {
	root := t.TempDir()
	run := fakeRun(t, filepath.Join(root, "from"), Defaults())
	for _, f := range []string{runLockFile, ".summary.json.tmp123"} {
		os.WriteFile(filepath.Join(run, f), []byte("pid 1"), 0o644)
	}
	store := filepath.Join(root, "store")
	if rep, err := (Store{Dir: store}).Collect(filepath.Join(root, "from")); err != nil || rep.Copied != 1 {
		t.Fatalf("Collect: %+v, %v", rep, err)
	}
	names, _ := os.ReadDir(filepath.Join(store, filepath.Base(run)))
	if len(names) != 1 || names[0].Name() != SummaryFile {
		t.Errorf("collected run holds %v, want summary.json alone", names)
	}
}
