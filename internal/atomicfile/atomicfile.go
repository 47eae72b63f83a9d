// Package atomicfile writes files so that a crash or an error never leaves a
// partial file: the content goes to a temporary file in the same directory,
// which is synced and renamed over the destination.
package atomicfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write calls fill with a writer on a temporary file and, if fill and every
// file operation succeed, renames the file to path (mode 0644). On any error
// path is left as it was and the temporary file is removed; the error names
// path.
func Write(path string, fill func(w io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return pathError(path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = pathError(path, err)
		}
	}()
	if err = fill(tmp); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// WriteFile writes data to path atomically (see Write).
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(data))
		return err
	})
}

// WriteJSON writes v to path atomically as indented JSON (one space per
// level) and a final newline: the run files, checkpoints and reports.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return WriteFile(path, append(b, '\n'))
}

// pathError reports err against path rather than the temporary file's name.
func pathError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// syncDir makes a rename in dir durable where the system allows it; failure
// only weakens durability, so it is ignored.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// NewDirs returns dir and those of its parents that do not exist, deepest
// first: the directories os.MkdirAll(dir) would create, for a caller that
// removes them again (RemoveEmpty) when its first write fails.
func NewDirs(dir string) []string {
	var dirs []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		dirs = append(dirs, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	return dirs
}

// RemoveEmpty removes each of dirs, in order, that is empty.
func RemoveEmpty(dirs []string) {
	for _, d := range dirs {
		os.Remove(d) // fails, and keeps d, unless d is empty
	}
}
