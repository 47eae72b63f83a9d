package experiment

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPack: a packed run reads back the same metrics, its gzip bytes are
// the same whenever it is packed, and it can still be restored; an
// unfinished run is refused.
func TestPack(t *testing.T) {
	var packs [][]byte
	for range 2 {
		s := Store{Dir: t.TempDir()}
		cfg := small()
		if _, _, err := s.Run(context.Background(), cfg, nil); err != nil {
			t.Fatal(err)
		}
		dir := s.RunDir(cfg.Key())
		want := read(t, filepath.Join(dir, MetricsFile))
		if ok, err := s.Pack(cfg.Key()); !ok || err != nil {
			t.Fatalf("pack: %v %v", ok, err)
		}
		for _, name := range packedFiles {
			if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
				t.Errorf("%s is still there after packing (%v)", name, err)
			}
		}
		got, err := ReadMetrics(dir)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("packed metrics read back %v, equal %v", err, bytes.Equal(got, want))
		}
		if ok, err := s.Pack(cfg.Key()); ok || err != nil {
			t.Errorf("packing a packed run: %v %v", ok, err)
		}
		os.Remove(filepath.Join(dir, ModelFile))
		if _, err := s.Restore(context.Background(), cfg.Key(), t.TempDir(), nil); err != nil {
			t.Fatalf("restore of a packed run: %v", err)
		}
		packs = append(packs, read(t, filepath.Join(dir, MetricsFile+packedSuffix)))
	}
	if !bytes.Equal(packs[0], packs[1]) {
		t.Error("the same run packed twice gives different bytes")
	}

	s := Store{Dir: t.TempDir()}
	if _, err := s.Pack("0123456789abcdef"); err == nil || !strings.Contains(err.Error(), "no finished run") {
		t.Errorf("unfinished run: %v", err)
	}
	dir := filepath.Join(s.Dir, "run")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, MetricsFile+packedSuffix), []byte("not gzip"), 0o644)
	if _, err := ReadMetrics(dir); err == nil || !strings.Contains(err.Error(), MetricsFile+packedSuffix) {
		t.Errorf("damaged packed metrics: %v", err)
	}
	os.Remove(filepath.Join(dir, MetricsFile+packedSuffix))
	if _, err := ReadMetrics(dir); !os.IsNotExist(err) || !strings.Contains(err.Error(), MetricsFile) {
		t.Errorf("no metrics: %v", err)
	}
}
