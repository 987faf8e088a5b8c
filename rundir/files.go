package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Mkdir creates the directory d in a run directory (and those missing
// above it), 0700. Whatever else has its name (a symbolic link, a file)
// is removed first, never followed; a directory there must be the user's.
func Mkdir(d string) error {
	st, err := os.Lstat(d)
	switch {
	case err == nil && st.IsDir():
		if owner(st) != os.Geteuid() {
			return fmt.Errorf("%s is owned by another user (uid %d): refused", d, owner(st))
		}
		return nil
	case err == nil:
		if err := os.Remove(d); err != nil {
			return err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if err := os.MkdirAll(filepath.Dir(d), DirMode); err != nil {
		return err
	}
	return os.Mkdir(d, DirMode)
}

// Create creates the file name in a run directory anew, 0600, to write:
// whatever had its name is removed first (a symbolic link: the link, never
// what it points to), and the file is opened only if it is the new one
// (O_EXCL, O_NOFOLLOW), so nothing planted meanwhile is written through.
func Create(name string) (*os.File, error) {
	if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, FileMode)
}

// WriteFile writes data to the file name in a run directory, created
// anew as Create does.
func WriteFile(name string, data []byte) error {
	f, err := Create(name)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// LockFile is the run directory's lock: a run holds it (flock) for as
// long as it writes in the directory; it holds the holder's pid.
const LockFile = "lock"

// Lock is a held lock of a run directory.
type Lock struct{ f *os.File }

// Acquire takes the lock of the run directory dir, at once or not at
// all: another run holding it is an error that names its pid. The kernel
// lets go of the lock of a process that ended, however it ended.
func Acquire(dir string) (*Lock, error) {
	name := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, FileMode)
	if errors.Is(err, syscall.ELOOP) {
		// a link planted in the lock's place: replaced (removed, not followed)
		if err = os.Remove(name); err == nil {
			f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, FileMode)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cannot lock the run directory: %v", err)
	}
	if err := flock(f); err != nil {
		f.Close()
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("cannot lock the run directory: %s is not a regular file", name)
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return &Lock{f: f}, nil
}

func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			holder := "another mpivet"
			if b, err := os.ReadFile(f.Name()); err == nil && strings.TrimSpace(string(b)) != "" {
				holder += " (pid " + strings.TrimSpace(string(b)) + ")"
			}
			return fmt.Errorf("run directory %s is in use by %s: two runs in one directory would corrupt each other's records; wait for it or use another --dir", filepath.Dir(f.Name()), holder)
		default:
			return fmt.Errorf("cannot lock the run directory: %v", err)
		}
	}
}

// Release lets go of the lock (the file stays: removing it would let a
// third run lock a new file while a second holds the old one).
func (l *Lock) Release() {
	if l != nil && l.f != nil {
		l.f.Close()
		l.f = nil
	}
}
