package layer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// The layer cache holds code that runs inside every rank of every program
// mpivet checks (libmpivet.so, preloaded) and a program it starts
// (mpivet-supervise). Whoever can write to it runs code as the user, so
// it must be the user's own, as Go's build cache and ccache are: the
// directory is created 0700 and, before every use, it must be owned by
// the effective uid and not writable by its group or others, and every
// directory above it must be the user's or root's, and writable by no one
// else or sticky like /tmp (where others cannot remove or rename what is
// not theirs). A symbolic link on the way must
// be the user's or root's, and the directory it leads to is checked the
// same way. A cache that fails is refused with a message that says why;
// mpivet does not fall back to another place then, since a cache the user
// chose (MPIVET_CACHE) or their own home should not be silently replaced.

// CacheDir returns the layer cache, created if needed, once it has been
// checked to be the user's own: $MPIVET_CACHE, else the user's cache
// directory ($XDG_CACHE_HOME/mpivet or ~/.cache/mpivet), else, with
// neither HOME nor XDG_CACHE_HOME set, a directory named after the uid in
// the temporary directory ($TMPDIR or /tmp: mpivet-cache-UID).
func CacheDir() (string, error) {
	if d := os.Getenv("MPIVET_CACHE"); d != "" {
		return privateDir(d, "MPIVET_CACHE")
	}
	if d, err := os.UserCacheDir(); err == nil {
		return privateDir(filepath.Join(d, "mpivet"), "")
	}
	return privateDir(filepath.Join(os.TempDir(), fmt.Sprintf("mpivet-cache-%d", os.Geteuid())), "")
}

// UnsafeError is a cache directory mpivet will not use.
type UnsafeError struct {
	Dir    string // the cache directory
	Path   string // the part of its path that is at fault
	Reason string
	Env    string // the variable that named Dir, if one did
}

func (e *UnsafeError) Error() string {
	where := e.Path
	if e.Path != e.Dir {
		where = fmt.Sprintf("%s (on the way to %s)", e.Path, e.Dir)
	}
	hint := "set MPIVET_CACHE to a directory of your own"
	if e.Env != "" {
		hint = "set " + e.Env + " to a directory of your own"
	}
	return fmt.Sprintf("will not use the layer cache: %s %s; its code would run inside every rank as you. "+
		"Remove it or correct its owner and mode, or %s", where, e.Reason, hint)
}

// privateDir creates dir (0700, parents too) if it does not exist and
// checks that it is private (see the comment above). What exists of its
// parents is checked first: nothing is created where it would be refused.
func privateDir(dir, env string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	existing := abs
	for _, err := os.Lstat(existing); errors.Is(err, fs.ErrNotExist) && existing != "/"; _, err = os.Lstat(existing) {
		existing = filepath.Dir(existing)
	}
	if existing != abs {
		if err := checkResolved(existing, false); err != nil {
			err.Dir, err.Env = abs, env
			return "", err
		}
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return "", fmt.Errorf("cannot create the layer cache %s: %v", abs, err)
	}
	// Mkdir fails on anything already there, a link included (O_EXCL's
	// semantics): what exists is checked below, whoever made it.
	if err := os.Mkdir(abs, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("cannot create the layer cache %s: %v", abs, err)
	}
	if err := checkResolved(abs, true); err != nil {
		err.Dir, err.Env = abs, env
		return "", err
	}
	return abs, nil
}

// checkResolved checks the path p (checkPath), and the path its links
// lead to if it has any.
func checkResolved(p string, cache bool) *UnsafeError {
	if err := checkPath(p, cache); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return &UnsafeError{Path: p, Reason: fmt.Sprintf("cannot be resolved (%v)", err)}
	}
	if real != p {
		return checkPath(real, cache)
	}
	return nil
}

// checkPath checks every component of the absolute path p: the last, if
// cache, must be a directory of the user's that no one else can write to
// (or a link to one, checked by the caller), the others directories of
// the user's or root's that no one else can write to or that are sticky.
func checkPath(p string, cache bool) *UnsafeError {
	euid := uint32(os.Geteuid())
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if p == "/" {
		parts = nil
	}
	cur := "/"
	for i := -1; i < len(parts); i++ {
		if i >= 0 {
			cur = filepath.Join(cur, parts[i])
		}
		fi, err := os.Lstat(cur)
		if err != nil {
			return &UnsafeError{Path: cur, Reason: fmt.Sprintf("cannot be examined (%v)", err)}
		}
		if r := unsafeReason(fi, euid, cache && i == len(parts)-1); r != "" {
			return &UnsafeError{Path: cur, Reason: r}
		}
	}
	return nil
}

// unsafeReason says what is wrong with one component of a cache's path,
// "" if nothing.
func unsafeReason(fi fs.FileInfo, euid uint32, last bool) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "has no owner mpivet can read"
	}
	mode := fi.Mode()
	othersWrite := mode.Perm()&0o022 != 0
	switch {
	case mode&fs.ModeSymlink != 0:
		if st.Uid != euid && st.Uid != 0 {
			return fmt.Sprintf("is a symbolic link owned by uid %d, not by you (uid %d) or root", st.Uid, euid)
		}
	case !mode.IsDir():
		return "is not a directory"
	case last && st.Uid != euid:
		return fmt.Sprintf("is owned by uid %d, not by you (uid %d)", st.Uid, euid)
	case last && othersWrite:
		return fmt.Sprintf("can be written by its group or by others (mode %04o)", mode.Perm())
	case st.Uid != euid && st.Uid != 0:
		return fmt.Sprintf("is owned by uid %d, who could replace what is in it", st.Uid)
	case othersWrite && mode&fs.ModeSticky == 0:
		return fmt.Sprintf("can be written by its group or by others and is not sticky (mode %04o)", mode.Perm())
	}
	return ""
}
