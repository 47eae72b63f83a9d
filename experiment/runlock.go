package experiment

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// runLockFile is held (flock) by the process writing a run directory, for
// the whole of a Train, and names it (pid, command line, start time) for a
// second writer's error. It is removed when the run ends; a killed run
// leaves it behind unlocked, which the next Train takes over.
const runLockFile = ".lock"

// maxHolder bounds the holder line kept in and read from runLockFile.
const maxHolder = 512

// lockRun takes dir's run lock, refusing, with one line naming the holder,
// when another process (or another Train of this one) holds it. A
// directory this process cannot write (a read-only file system, another
// user's run) needs no lock: it cannot write the run either, only read a
// finished one. The returned unlock may be called more than once.
func lockRun(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, runLockFile)
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission) {
			return func() {}, nil
		}
		if err != nil {
			return nil, err
		}
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		if !ok {
			holder := readHolder(f)
			f.Close()
			return nil, fmt.Errorf("%s: another run is writing this directory (%s); wait for it to end, or give another directory", dir, holder)
		}
		// The holder before us may have removed the file between our open
		// and our lock: then ours is a lock on nothing, take the new file's.
		if sameFile(f, path) {
			writeHolder(f)
			var once sync.Once
			return func() {
				once.Do(func() {
					if sameFile(f, path) {
						os.Remove(path) // while locked: a waiter finds it gone and starts over
					}
					f.Close()
				})
			}, nil
		}
		f.Close()
	}
}

// sameFile reports whether path still names the open file f.
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// writeHolder records this process in its lock file; a failure only makes
// a second writer's error less specific.
func writeHolder(f *os.File) {
	cmd := strings.Join(os.Args, " ")
	line := fmt.Sprintf("pid %d, started %s, command: %s", os.Getpid(), time.Now().UTC().Format(time.RFC3339), cmd)
	line = strings.ReplaceAll(line, "\n", " ")
	if len(line) > maxHolder-1 {
		line = line[:maxHolder-4] + "..."
	}
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(line+"\n"), 0)
	}
}

// readHolder returns the holder line of a lock file held by another.
func readHolder(f *os.File) string {
	b, _ := io.ReadAll(io.LimitReader(f, maxHolder))
	line, _, _ := strings.Cut(string(b), "\n")
	if line = strings.TrimSpace(line); line == "" {
		return "a process that has not yet written its pid"
	}
	return line
}
