package experiment

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/nspda/nspda/internal/atomicfile"
	"github.com/nspda/nspda/internal/limits"
)

// A finished run's line files are read whole, never appended to again, and
// are most of a store's size (metrics.jsonl about a third, its JSON numbers
// repeating from line to line). Pack keeps them gzipped: about a sixth of
// the size, and written deterministically (no name or time in the gzip
// header, one compression level), so that packing a run twice, or on two
// machines, gives the same bytes.
const packedSuffix = ".gz"

// packedFiles are the files Pack compresses.
var packedFiles = []string{MetricsFile, timingFile}

// ReadMetrics returns the bytes of the metrics of the run in dir, from
// metrics.jsonl or, in a packed run, metrics.jsonl.gz.
func ReadMetrics(dir string) ([]byte, error) {
	return readRunLines(dir, MetricsFile, "metrics file")
}

// readRunLines reads the line file name of the run in dir, or its packed
// form, bounded by limits.RunFileBytes either way.
func readRunLines(dir, name, what string) ([]byte, error) {
	path := filepath.Join(dir, name)
	b, err := limits.ReadFile(path, what, limits.RunFileBytes)
	if !errors.Is(err, fs.ErrNotExist) {
		return b, err
	}
	b, perr := readPacked(path+packedSuffix, what)
	if errors.Is(perr, fs.ErrNotExist) {
		return nil, err // neither: name the plain file
	}
	return b, perr
}

// readPacked reads the gzipped file path, bounded by limits.RunFileBytes
// once uncompressed.
func readPacked(path, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	b, err := limits.ReadAll(zr, path, what, limits.RunFileBytes)
	if err != nil {
		return nil, err
	}
	if err := zr.Close(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return b, nil
}

// gzipped is b compressed as Pack stores it.
func gzipped(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Pack compresses the line files of the finished run key (metrics.jsonl,
// timing.jsonl) to NAME.gz, each written atomically and read back before
// the plain file is removed; it reports whether it packed any. An
// unfinished run is refused: its training appends to those files.
func (s Store) Pack(key string) (bool, error) {
	if !s.Finished(key) {
		return false, fmt.Errorf("store %s has no finished run %s to pack", s.Dir, key)
	}
	unlock, err := s.lock(key)
	if err != nil {
		return false, err
	}
	defer unlock()
	dir := s.RunDir(key)
	packed := false
	for _, name := range packedFiles {
		path := filepath.Join(dir, name)
		b, err := limits.ReadFile(path, name, limits.RunFileBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return packed, err
		}
		z, err := gzipped(b)
		if err != nil {
			return packed, err
		}
		if err := atomicfile.WriteFile(path+packedSuffix, z); err != nil {
			return packed, err
		}
		back, err := readPacked(path+packedSuffix, name)
		if err == nil && !bytes.Equal(back, b) {
			err = fmt.Errorf("%s: reads back different from %s", path+packedSuffix, name)
		}
		if err != nil {
			os.Remove(path + packedSuffix)
			return packed, err
		}
		// Until the plain file is gone both are there, alike; readers
		// take the plain one.
		if err := os.Remove(path); err != nil {
			return packed, err
		}
		packed = true
	}
	return packed, nil
}
