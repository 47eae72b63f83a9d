// Package atomicfile writes files so that a crash or an error never leaves a
// partial file: the content goes to a temporary file in the same directory,
// which is synced and renamed over the destination.
//
// Only a regular file is ever replaced: a rename would swap a device, a
// FIFO, a socket or a directory for a regular file (--out /dev/null would
// leave a file where the device was), so those are refused. A symbolic link
// is followed, and the file it names is replaced, as a plain write through
// the link would; a file that is replaced keeps its permissions.
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
// file operation succeed, renames the file to path: to the file path's
// symbolic links lead to, if it is one. A new file has mode 0644, a replaced
// one keeps its mode. Anything but a regular file (a device, a FIFO, a
// socket, a directory) is refused before fill is called. On any error path
// is left as it was and the temporary file is removed; the error names path.
func Write(path string, fill func(w io.Writer) error) (err error) {
	target, mode, err := destination(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp*")
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
	if err = tmp.Chmod(mode); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), target); err != nil {
		return err
	}
	syncDir(filepath.Dir(target))
	return nil
}

// maxLinks bounds the symbolic links followed from one path, as the
// kernel's ELOOP does.
const maxLinks = 40

// destination returns the file a write to path replaces, following
// symbolic links (a dangling one leads to the file to create), and the mode
// to give it: an existing file's, or 0644 for a new one. It refuses a
// destination that is not a regular file, naming path and, for a link, the
// file it leads to.
func destination(path string) (string, fs.FileMode, error) {
	target := path
	for range maxLinks {
		fi, err := os.Lstat(target)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return target, 0o644, nil
		case err != nil:
			return "", 0, pathError(path, err)
		case fi.Mode().IsRegular():
			return target, fi.Mode().Perm(), nil
		case fi.Mode()&fs.ModeSymlink == 0:
			what := kind(fi.Mode())
			if target != path {
				what = fmt.Sprintf("a symbolic link to %s, %s", target, what)
			}
			return "", 0, fmt.Errorf("%s: is %s, not a regular file: refusing to replace it", path, what)
		}
		link, err := os.Readlink(target)
		if err != nil {
			return "", 0, pathError(path, err)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(target), link)
		}
		target = link
	}
	return "", 0, fmt.Errorf("%s: more than %d symbolic links to follow", path, maxLinks)
}

// kind names the type of a file that is not a regular file or a link.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file (" + m.Type().String() + ")"
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
