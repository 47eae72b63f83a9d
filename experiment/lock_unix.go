//go:build unix

package experiment

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on path, waiting while another process
// holds it. The lock dies with the process, so a killed run leaves none. On
// a file system without flock (some NFS mounts) it goes on unlocked: the
// tasks of a plan work on distinct runs anyway.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if _, err := flock(f, syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// tryLock takes an exclusive flock on f without waiting: false if another
// open file holds it. Where the file system has no flock it reports the
// lock taken, as lockFile goes on unlocked.
func tryLock(f *os.File) (bool, error) {
	return flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
}

// flock applies how to f, retrying when interrupted: false if the lock is
// held elsewhere (with LOCK_NB).
func flock(f *os.File, how int) (bool, error) {
	var err error
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			break
		}
	}
	switch {
	case err == nil, err == syscall.ENOLCK, err == syscall.EOPNOTSUPP, err == syscall.ENOSYS:
		return true, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return false, nil
	}
	return false, err
}
