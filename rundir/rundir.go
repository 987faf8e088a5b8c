// Package rundir creates run directories and the files mpivet writes in
// them, so that nobody else can make mpivet write where they choose: a run
// directory is private (0700, the user's own, in a directory nobody else
// can rename it from), every record file is created anew (0600) without
// following a symbolic link that has its name, and a run holds the
// directory's lock for as long as it writes there (docs/guide/files.md).
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

// The modes of what mpivet creates in a run directory.
const (
	DirMode  fs.FileMode = 0o700
	FileMode fs.FileMode = 0o600
)

// Prepare makes dir ready to be a run directory (--dir): it creates it,
// and the directories missing above it, 0700, or takes the one there. It
// refuses a directory that is not the user's own, or that someone else
// could write in or rename (docs/guide/files.md says what is refused).
func Prepare(dir string) error {
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return fmt.Errorf("cannot create the run directory: %v", err)
	}
	return Check(dir)
}

// Check says why dir may not be a run directory, nil if it may: it must
// be a directory the user owns and nobody else may write in, in a parent
// directory that only the user or root may change, or that is sticky
// (like /tmp). A symbolic link to it must be the user's or root's, in such
// a parent too.
func Check(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	lst, err := os.Lstat(abs)
	if err != nil {
		return err
	}
	if lst.Mode()&fs.ModeSymlink != 0 {
		if err := trustedParent(abs); err != nil {
			return err
		}
		if uid := owner(lst); uid != os.Geteuid() && uid != 0 {
			return fmt.Errorf("run directory %s is a symbolic link owned by another user (uid %d): refused", dir, uid)
		}
		if abs, err = filepath.EvalSymlinks(abs); err != nil {
			return err
		}
	}
	if err := private(abs, dir); err != nil {
		return err
	}
	return trustedParent(abs)
}

// private checks that abs (named dir by the user) is a directory of the
// user's that nobody else may write in.
func private(abs, dir string) error {
	st, err := os.Lstat(abs)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("run directory %s is not a directory", dir)
	}
	if uid := owner(st); uid != os.Geteuid() {
		return fmt.Errorf("run directory %s is owned by another user (uid %d, you are %d): refused, since its owner could make mpivet write elsewhere; use a directory of your own", dir, uid, os.Geteuid())
	}
	if st.Mode().Perm()&0o022 != 0 {
		fix := "chmod go-w it or use another"
		if st.Mode()&fs.ModeSticky != 0 {
			fix = "use a directory of your own in it, e.g. --dir " + filepath.Join(dir, "run1")
		}
		return fmt.Errorf("run directory %s is writable by others (mode %04o): refused, since they could plant links to files of yours in it; %s", dir, st.Mode().Perm(), fix)
	}
	return nil
}

// trustedParent checks the directory holding abs: only the user or root
// may change it, unless it is sticky (then nobody else may rename or
// remove what the user has in it).
func trustedParent(abs string) error {
	parent := filepath.Dir(abs)
	st, err := os.Stat(parent)
	if err != nil {
		return err
	}
	if st.Mode()&fs.ModeSticky != 0 {
		return nil
	}
	if uid := owner(st); uid != os.Geteuid() && uid != 0 {
		return fmt.Errorf("the directory %s holding the run directory is owned by another user (uid %d): refused, since they could replace the run directory", parent, uid)
	}
	if st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("the directory %s holding the run directory is writable by others (mode %04o) and not sticky: refused, since they could replace the run directory", parent, st.Mode().Perm())
	}
	return nil
}

func owner(st fs.FileInfo) int {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(s.Uid)
	}
	return -1
}

// New creates a new run directory, named run-STAMP-RANDOM: under
// ./.mpivet if that may hold run directories (Check), else under the
// user's own directory in the temporary directory, mpivet-UID (Fallback).
func New(stamp string) (string, error) {
	var why []string
	for _, base := range []func() (string, error){local, Fallback} {
		b, err := base()
		if err == nil {
			var d string
			if d, err = os.MkdirTemp(b, "run-"+stamp+"-"); err == nil {
				return d, nil
			}
		}
		why = append(why, err.Error())
	}
	return "", fmt.Errorf("cannot create a run directory (use --dir): %s", strings.Join(why, "; "))
}

func local() (string, error) {
	if err := os.MkdirAll(".mpivet", DirMode); err != nil {
		return "", err
	}
	return ".mpivet", Check(".mpivet")
}

// Fallback is the user's own directory for run directories in the
// temporary directory, mpivet-UID, created 0700 if needed; one that is
// there must be a directory (not a link) of the user's with no access for
// anyone else.
func Fallback() (string, error) {
	d := filepath.Join(os.TempDir(), "mpivet-"+strconv.Itoa(os.Geteuid()))
	if err := os.Mkdir(d, DirMode); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	st, err := os.Lstat(d)
	if err != nil {
		return "", err
	}
	switch {
	case !st.IsDir():
		return "", fmt.Errorf("%s is not a directory (a link?): refused; remove it", d)
	case owner(st) != os.Geteuid():
		return "", fmt.Errorf("%s is owned by another user (uid %d): refused; remove it", d, owner(st))
	case st.Mode().Perm()&0o077 != 0:
		return "", fmt.Errorf("%s is open to others (mode %04o): refused; chmod 700 it", d, st.Mode().Perm())
	}
	return d, trustedParent(d)
}
