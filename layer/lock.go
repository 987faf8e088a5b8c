package layer

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// A build's lock file, KEY.lock beside the build, says who has the build:
//
//   - a process that builds it, or removes it (a damaged build, the trim),
//     holds an exclusive flock;
//   - a process that uses it holds a shared flock from the time it found
//     it until it exits (the kernel releases it however the process ends),
//     so that no trim removes a build from under a verification that runs.
//
// A process keeps one open lock file per build it uses (held), and
// converts its shared lock to an exclusive one to build again (a build
// found damaged): two locks of its own would wait for each other. Only
// the trim removes a lock file, with the exclusive lock held; whoever
// locks checks afterwards that the file it locked is still the one at its
// path, and starts again if not (lockFile).

// keyLock is the lock file of one build held by this process.
type keyLock struct {
	mu   sync.Mutex // one goroutine of the process at a time builds or checks the build
	path string
	f    *os.File // nil until locked
}

var held = struct {
	sync.Mutex
	locks map[string]*keyLock // by lock file path
}{locks: map[string]*keyLock{}}

// useKey returns the lock of key's build in cache, locked shared (waiting,
// with a note, for a build or a removal in progress), and locked for the
// calling goroutine (l.mu): it must call l.mu.Unlock.
func useKey(cache, key string, notify func(string)) (*keyLock, error) {
	p := filepath.Join(cache, key+".lock")
	held.Lock()
	l := held.locks[p]
	if l == nil {
		l = &keyLock{path: p}
		held.locks[p] = l
	}
	held.Unlock()
	l.mu.Lock()
	if l.f != nil {
		return l, nil
	}
	f, err := lockFile(p, nil, syscall.LOCK_SH, func() {
		notify(fmt.Sprintf("waiting for another mpivet that is building the layer in %s", cache))
	})
	if err != nil {
		l.mu.Unlock()
		return nil, err
	}
	l.f = f
	return l, nil
}

// exclusive converts l's lock to an exclusive one, for a build (waiting,
// with a note, for the other processes that use or build it); shared
// converts it back.
func (l *keyLock) exclusive(notify func(string)) error {
	f, err := lockFile(l.path, l.f, syscall.LOCK_EX, func() {
		notify(fmt.Sprintf("waiting for the other mpivet processes that use or build the layer in %s", filepath.Dir(l.path)))
	})
	l.f = f
	return err
}

func (l *keyLock) shared() {
	if l.f == nil {
		return
	}
	if f, err := lockFile(l.path, l.f, syscall.LOCK_SH, func() {}); err == nil {
		l.f = f
	} else {
		l.f = nil
	}
}

// lockFile takes a flock (how: LOCK_SH or LOCK_EX) on the lock file p,
// through f if f is open on it (a conversion), telling wait when it has
// to wait. Once locked, the file must still be the one at p (not removed
// by a trim meanwhile): otherwise it is closed, and p opened (created) and
// locked again. On an error f is closed.
func lockFile(p string, f *os.File, how int, wait func()) (*os.File, error) {
	for {
		if f == nil {
			var err error
			if f, err = os.OpenFile(p, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600); err != nil {
				return nil, fmt.Errorf("cannot lock the layer cache: %v", err)
			}
		}
		err := flock(f, how, wait)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("cannot lock the layer cache: %v", err)
		}
		if sameFile(f, p) {
			return f, nil
		}
		f.Close()
		f = nil
	}
}

// flock locks f, without waiting if it can; wait is called before it waits.
func flock(f *os.File, how int, wait func()) error {
	err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
	if err != syscall.EWOULDBLOCK {
		return err
	}
	wait()
	for {
		if err = syscall.Flock(int(f.Fd()), how); err != syscall.EINTR {
			return err
		}
	}
}

// sameFile says whether the open file f is the file at p (not followed).
func sameFile(f *os.File, p string) bool {
	var a, b syscall.Stat_t
	if syscall.Fstat(int(f.Fd()), &a) != nil || syscall.Lstat(p, &b) != nil {
		return false
	}
	return a.Dev == b.Dev && a.Ino == b.Ino
}
