package experiment

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// CollectReport counts what Collect did with the finished runs it found.
type CollectReport struct {
	Copied    int        // new to the store
	Replaced  int        // replaced an unfinished run of the same key
	Identical int        // already in the store with the same summary
	Conflicts []Conflict // in the store with a different summary: left alone
	Failed    []error    // runs that could not be read or copied (a corrupt summary.json): left alone
}

// Conflict is a finished run whose summary differs from the store's run of
// the same key in more than its wall time.
type Conflict struct {
	Key   string
	From  string // the run directory that was refused
	Field string // the first summary field (by name) that differs
}

// String describes the conflict in one line.
func (c Conflict) String() string {
	return fmt.Sprintf("%s from %s (summary field %q differs)", c.Key, c.From, c.Field)
}

// Collect merges every finished run found under the from directories (run
// directories, or trees of them such as other stores) into s. A run new to
// s is copied; one that replaces an unfinished run of s is copied over it;
// one whose summary equals s's except for wall time is skipped; one whose
// summary differs is a Conflict and is not copied. Other runs are still
// merged when there are conflicts; the caller decides whether they fail.
// A run that cannot be read or copied (a truncated summary.json, in a from
// directory or in s) is recorded in Failed and the others are still merged;
// the error is only for a store or a from directory that cannot be used.
func (s Store) Collect(from ...string) (CollectReport, error) {
	var rep CollectReport
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return rep, err
	}
	for _, root := range from {
		dirs, err := finishedRuns(root)
		if err != nil {
			return rep, err
		}
		for _, dir := range dirs {
			if err := s.collectRun(dir, &rep); err != nil {
				rep.Failed = append(rep.Failed, err)
			}
		}
	}
	return rep, nil
}

// finishedRuns lists the directories under root (root included) holding a
// summary.json, in lexical order, skipping hidden directories.
func finishedRuns(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != root && strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir
		}
		if exists(filepath.Join(path, SummaryFile)) {
			dirs = append(dirs, path)
			return fs.SkipDir
		}
		return nil
	})
	return dirs, err
}

func (s Store) collectRun(dir string, rep *CollectReport) error {
	src, err := ReadSummary(dir)
	if err != nil {
		return err
	}
	key := src.Key
	if same, err := samePath(dir, s.RunDir(key)); err != nil || same {
		return err
	}
	unlock, err := s.lock(key)
	if err != nil {
		return err
	}
	defer unlock()
	have, err := s.Summary(key)
	switch {
	case err != nil:
		return err
	case have != nil:
		if same, field := sameSummary(have, src); same {
			rep.Identical++
		} else {
			rep.Conflicts = append(rep.Conflicts, Conflict{Key: key, From: dir, Field: field})
		}
		return nil
	}
	replace := exists(s.RunDir(key))
	if err := copyRun(dir, s.Dir, key); err != nil {
		return err
	}
	if replace {
		rep.Replaced++
	} else {
		rep.Copied++
	}
	return nil
}

// copyRun copies the regular files of dir into a temporary directory of
// store and renames it to store/key, replacing what was there.
func copyRun(dir, store, key string) error {
	tmp, err := os.MkdirTemp(store, ".collect-"+key+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			if err := copyFile(filepath.Join(dir, e.Name()), filepath.Join(tmp, e.Name())); err != nil {
				return err
			}
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	dst := filepath.Join(store, key)
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func samePath(a, b string) (bool, error) {
	ia, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	ib, err := os.Stat(b)
	if err != nil {
		return false, nil
	}
	return os.SameFile(ia, ib), nil
}

// sortedKeys returns the union of the maps' keys in increasing order.
func sortedKeys[V any](ms ...map[string]V) []string {
	var keys []string
	for _, m := range ms {
		for k := range m {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}
