package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nspda/nspda/internal/atomicfile"
)

// fakeRun writes a finished run of cfg (a summary and nothing else) into store.
func fakeRun(t *testing.T, store string, cfg Config) string {
	t.Helper()
	dir := filepath.Join(store, cfg.Key())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteJSON(filepath.Join(dir, SummaryFile), &Summary{Key: cfg.Key(), Config: cfg}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCollectDamagedRun: one truncated summary.json in a store is reported
// and skipped; the other runs of that store and of the other stores are
// merged (Collect used to stop at it, merging nothing). The store then
// names the damaged run and how to recover.
func TestCollectDamagedRun(t *testing.T) {
	root := t.TempDir()
	s1, s3, s12 := filepath.Join(root, "s1"), filepath.Join(root, "s3"), filepath.Join(root, "s12")
	cfg := Defaults()
	for seed := range uint64(3) {
		cfg.Seed = seed + 10
		fakeRun(t, s1, cfg)
	}
	cfg.Seed = 1
	bad := fakeRun(t, s3, cfg)
	cfg.Seed = 2
	fakeRun(t, s3, cfg)
	b, _ := os.ReadFile(filepath.Join(bad, SummaryFile))
	os.WriteFile(filepath.Join(bad, SummaryFile), b[:len(b)/2], 0o644)
	rep, err := Store{Dir: s12}.Collect(s3, s1)
	if err != nil || rep.Copied != 4 || len(rep.Failed) != 1 || !strings.Contains(rep.Failed[0].Error(), bad) {
		t.Fatalf("Collect: %+v, %v; want 4 copied and the damaged run reported", rep, err)
	}
	_, err = Store{Dir: s3}.Summary(filepath.Base(bad))
	if err == nil || !strings.Contains(err.Error(), "remove "+bad) {
		t.Errorf("Summary of the damaged run: %v, want how to recover", err)
	}
}

// TestCollectHugeSummary: a summary.json of more than limits.RunFileBytes
// (here a sparse file of 2 GiB) is refused unread and skipped like any
// damaged run; it used to be read whole (2 GB of memory, 7 s, for each).
func TestCollectHugeSummary(t *testing.T) {
	root := t.TempDir()
	from, store := filepath.Join(root, "from"), filepath.Join(root, "store")
	cfg := Defaults()
	fakeRun(t, from, cfg)
	cfg.Seed = 2
	huge := fakeRun(t, from, cfg)
	if err := os.Truncate(filepath.Join(huge, SummaryFile), 2<<30); err != nil {
		t.Skip("cannot make a sparse file here:", err)
	}
	start := time.Now()
	rep, err := Store{Dir: store}.Collect(from)
	if err != nil || rep.Copied != 1 || len(rep.Failed) != 1 || !strings.Contains(rep.Failed[0].Error(), "more than the limit") || time.Since(start) > 2*time.Second {
		t.Errorf("Collect: %+v, %v after %v; want 1 copied and the huge summary refused at once", rep, err, time.Since(start))
	}
}
