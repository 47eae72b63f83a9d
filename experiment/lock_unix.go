//go:build unix

package experiment

import (
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
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err == syscall.ENOLCK || err == syscall.EOPNOTSUPP || err == syscall.ENOSYS {
		err = nil
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
