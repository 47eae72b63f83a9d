package experiment

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nspda/nspda/internal/atomicfile"
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
//
// A store that Collect creates and copies no run into is removed again:
// a failed collect leaves no empty store behind.
func (s Store) Collect(from ...string) (rep CollectReport, err error) {
	created := atomicfile.NewDirs(s.Dir)
	defer func() {
		if len(created) > 0 && rep.Copied+rep.Replaced == 0 {
			removeLocks(s.Dir)
			atomicfile.RemoveEmpty(created)
		}
	}()
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
		// Lstat: a summary.json that is a dangling link is a run to refuse
		// (checkRunFiles), not a directory without one.
		if _, err := os.Lstat(filepath.Join(path, SummaryFile)); err == nil {
			dirs = append(dirs, path)
			return fs.SkipDir
		}
		return nil
	})
	return dirs, err
}

// removeLocks removes the lock files of a store that holds nothing else,
// one this process just created.
func removeLocks(store string) {
	locks := filepath.Join(store, ".locks")
	entries, _ := os.ReadDir(locks)
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".lock") {
			os.Remove(filepath.Join(locks, e.Name()))
		}
	}
	os.Remove(locks)
}

func (s Store) collectRun(dir string, rep *CollectReport) error {
	if err := checkRunFiles(dir); err != nil {
		return err
	}
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
	if replace {
		// An unfinished run of the store may be in training (nspda train
		// --resume on it): its run lock says so.
		unlockRun, err := lockRun(s.RunDir(key))
		if err != nil {
			return err
		}
		defer unlockRun()
	}
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

// checkRunFiles refuses a run directory holding a file that is not a
// regular file, such as a symbolic link: copyRun copies regular files only,
// so the run would be collected without it (a linked summary.json: a run
// without its summary, collected again on every collect). Hidden files (the
// run lock, temporary files) and subdirectories are not part of the run.
func checkRunFiles(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || e.IsDir() || e.Type().IsRegular() {
			continue
		}
		what := "not a regular file"
		if e.Type()&fs.ModeSymlink != 0 {
			what = "a symbolic link"
		}
		return fmt.Errorf("%s: is %s; collect copies a run's files, not links or special files: replace it by a copy of the file", filepath.Join(dir, e.Name()), what)
	}
	return nil
}

// copyRun copies the regular files of dir (but hidden ones: the run lock,
// temporary files) into a temporary directory of store and renames it to
// store/key, replacing what was there.
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
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
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
