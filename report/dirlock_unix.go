//go:build unix

package report

import (
	"os"
	"syscall"
)

// lockDir takes a lock on a folder: shared (a writer of report folders in
// it) or exclusive (a cleaner), waiting for it or not. ok is false when
// the lock was not taken (held elsewhere, or not supported there); the
// lock ends with unlock, or with the process, however it ends.
func lockDir(dir string, exclusive, wait bool) (unlock func(), ok bool) {
	f, err := os.Open(dir)
	if err != nil {
		return func() {}, false
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return func() {}, false
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, true
}
