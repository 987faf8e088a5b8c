// Package filestate brings back the files a program's runs create, change
// or remove, so that every replay of a verification starts from the file
// state the first run started from, and the files are left as one run of
// the program leaves them.
//
// The ranks keep a file's state before they first touch it, in a store
// directory of the run (layer/src/files says how, and why there rather
// than in an overlay of the working directory): its content, link target,
// or that it did not exist, with a manifest line per file. Between runs,
// when no rank runs, Restore brings every file of the manifest back to
// that state. After the first run, KeepFirst moves what the first run left
// aside, and at the end PutFirstBack puts it back: the working directory
// then holds what the first run wrote, as after one native run, not what
// the last replay wrote.
package filestate

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"mpivet/rundir"
)

// The kinds of entries: what a file was before the verification touched it.
const (
	Absent    = "absent"    // it did not exist: restoring removes it
	File      = "file"      // a regular file, its content kept
	Dir       = "dir"       // a directory (its files are entries of their own)
	Link      = "link"      // a symbolic link, its target kept
	Untracked = "untracked" // left alone: a directory renamed whole, a file that could not be copied
)

// Entry is one file of the manifest, as it was before the verification.
type Entry struct {
	Kind  string
	ID    string // its name in the store
	Mode  fs.FileMode
	Size  int64
	MTime time.Time
	Host  string // of the rank that kept it
	Path  string // absolute
}

// Store is the store directory of a verification.
type Store struct {
	Dir  string
	host string // this host
}

// New creates the store dir.
func New(dir string) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := rundir.Mkdir(abs); err != nil {
		return nil, fmt.Errorf("cannot create %s: %v", abs, err)
	}
	host, _ := os.Hostname()
	return &Store{Dir: abs, host: host}, nil
}

// Open opens the store dir of an earlier verification, nil if it has none.
func Open(dir string) *Store {
	if _, err := os.Stat(filepath.Join(dir, "manifest")); err != nil {
		return nil
	}
	host, _ := os.Hostname()
	return &Store{Dir: dir, host: host}
}

// Reachable says whether this host can restore the entry's file: one kept
// on this host, or on the file system of the store, which every host of
// the run shares. A file on another host's own file system (its /tmp) is
// not this host's file of the same name.
func (s *Store) Reachable(e Entry) bool {
	if e.Host == s.host {
		return true
	}
	store, err := os.Stat(s.Dir)
	if err != nil {
		return false
	}
	for p := e.Path; ; p = filepath.Dir(p) {
		if st, err := os.Stat(p); err == nil {
			a, ok1 := st.Sys().(*syscall.Stat_t)
			b, ok2 := store.Sys().(*syscall.Stat_t)
			return ok1 && ok2 && a.Dev == b.Dev
		}
		if p == filepath.Dir(p) {
			return false
		}
	}
}

// Entries reads the manifest, in the order of the paths (a directory
// before its files), one entry per file.
func (s *Store) Entries() ([]Entry, error) {
	f, err := os.Open(filepath.Join(s.Dir, "manifest"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var es []Entry
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for sc.Scan() {
		e, ok := parse(sc.Text())
		if ok && !seen[e.ID] {
			seen[e.ID] = true
			es = append(es, e)
		}
	}
	sort.Slice(es, func(i, j int) bool { return es[i].Path < es[j].Path })
	return es, sc.Err()
}

// parse reads a manifest line: KIND ID MODE SIZE MTIME HOST PATH.
func parse(line string) (Entry, bool) {
	f := strings.SplitN(line, " ", 7)
	if len(f) != 7 || !filepath.IsAbs(f[6]) {
		return Entry{}, false
	}
	mode, err1 := strconv.ParseUint(f[2], 8, 32)
	size, err2 := strconv.ParseInt(f[3], 10, 64)
	sec, nsec, _ := strings.Cut(f[4], ".")
	s, err3 := strconv.ParseInt(sec, 10, 64)
	ns, err4 := strconv.ParseInt(nsec, 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return Entry{}, false
	}
	return Entry{Kind: f[0], ID: f[1], Mode: fs.FileMode(mode) & fs.ModePerm, Size: size, MTime: time.Unix(s, ns), Host: f[5], Path: f[6]}, true
}

// Restored is what a Restore did.
type Restored struct {
	Changed []string // files it brought back (removed, rewritten, made again)
	Failed  []string // files it could not, with why
}

// Restore brings every file of the manifest back to its state before the
// verification. Only between runs: no rank may be touching them. It also
// clears the claims of ranks that were stopped while keeping a file, so
// that the next run keeps it.
func (s *Store) Restore() (Restored, error) {
	var r Restored
	es, err := s.Entries()
	if err != nil {
		return r, err
	}
	s.clearStale()
	for _, e := range es {
		if !s.Reachable(e) {
			continue
		}
		changed, err := s.restore(e)
		if err != nil {
			r.Failed = append(r.Failed, fmt.Sprintf("%s (%v)", e.Path, err))
		} else if changed {
			r.Changed = append(r.Changed, e.Path)
		}
	}
	return r, nil
}

// restore brings one file back, and says whether it had changed.
func (s *Store) restore(e Entry) (bool, error) {
	st, err := os.Lstat(e.Path)
	exists := err == nil
	switch e.Kind {
	case Absent:
		if !exists {
			return false, nil
		}
		return true, os.RemoveAll(e.Path)
	case File:
		if exists && same(e, st) {
			return false, nil
		}
		return true, s.rewrite(e, exists)
	case Dir:
		if exists && same(e, st) {
			return false, nil
		}
		if exists {
			os.RemoveAll(e.Path)
		}
		return true, os.MkdirAll(e.Path, e.Mode)
	case Link:
		target, err := os.ReadFile(filepath.Join(s.Dir, e.ID))
		if err != nil {
			return false, err
		}
		if now, err := os.Readlink(e.Path); err == nil && now == string(target) {
			return false, nil
		}
		if exists {
			os.RemoveAll(e.Path)
		}
		return true, os.Symlink(string(target), e.Path)
	}
	return false, nil // untracked
}

// rewrite writes a file's kept content back, with its mode and time.
func (s *Store) rewrite(e Entry, exists bool) error {
	if exists {
		if err := os.RemoveAll(e.Path); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(e.Path), 0o755); err != nil {
		return err
	}
	if err := copyFile(filepath.Join(s.Dir, e.ID), e.Path, e.Mode); err != nil {
		return err
	}
	if err := os.Chmod(e.Path, e.Mode); err != nil {
		return err
	}
	return os.Chtimes(e.Path, time.Now(), e.MTime)
}

// copyFile copies the regular file src to dst (in the kernel: Go's
// io.Copy between files uses copy_file_range).
func copyFile(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// clearStale removes the claims without a .done, and what they kept.
func (s *Store) clearStale() {
	claims, _ := filepath.Glob(filepath.Join(s.Dir, "*.claim"))
	for _, c := range claims {
		id := strings.TrimSuffix(c, ".claim")
		if _, err := os.Stat(id + ".done"); errors.Is(err, fs.ErrNotExist) {
			os.Remove(id)
			os.Remove(c)
		}
	}
}

// firstDir holds what the first run left of each file.
func (s *Store) firstDir() string { return filepath.Join(s.Dir, "first") }

// KeepFirst moves what the first run left of every file of the manifest
// into the store (renamed, or copied across file systems), replacing what
// an earlier call kept, and writes which files the first run left absent.
// Deepest files first, so that a directory the run made goes without the
// files that are entries of their own. It returns the files the first run
// left otherwise than it found them (in path order): not those it made
// and removed again, nor those it opened to write and left as they were.
func (s *Store) KeepFirst() ([]string, error) {
	es, err := s.Entries()
	if err != nil {
		return nil, err
	}
	first := s.firstDir()
	os.RemoveAll(first)
	if err := rundir.Mkdir(first); err != nil {
		return nil, err
	}
	var absent, left []string
	for i := len(es) - 1; i >= 0; i-- {
		e := es[i]
		if e.Kind == Untracked || !s.Reachable(e) {
			continue
		}
		if st, err := os.Lstat(e.Path); errors.Is(err, fs.ErrNotExist) {
			absent = append(absent, e.ID)
			if e.Kind != Absent {
				left = append(left, e.Path)
			}
			continue
		} else if err == nil && same(e, st) {
			continue // opened to write, left as it was: nothing to keep
		} else if err == nil {
			left = append(left, e.Path)
		}
		if err := move(e.Path, filepath.Join(first, e.ID)); err != nil {
			return nil, fmt.Errorf("cannot keep what the first run left in %s: %v", e.Path, err)
		}
	}
	slices.Reverse(left)
	return left, rundir.WriteFile(filepath.Join(first, "absent"), []byte(strings.Join(absent, "\n")))
}

// same says whether a file that exists is as the entry says it was.
func same(e Entry, st fs.FileInfo) bool {
	switch e.Kind {
	case File:
		return st.Mode().IsRegular() && st.Size() == e.Size && st.ModTime().Equal(e.MTime) && st.Mode().Perm() == e.Mode
	case Dir:
		return st.IsDir()
	}
	return false // absent, or a link (compared by target when restored)
}

// PutFirstBack puts what KeepFirst kept back in place, once the files are
// restored: the files are then as the first run left them. Directories
// first, then their files.
func (s *Store) PutFirstBack() error {
	es, err := s.Entries()
	if err != nil {
		return err
	}
	first := s.firstDir()
	list, err := os.ReadFile(filepath.Join(first, "absent"))
	if err != nil {
		return nil // no first run kept
	}
	absent := map[string]bool{}
	for _, id := range strings.Fields(string(list)) {
		absent[id] = true
	}
	var errs []error
	for _, e := range es {
		if !s.Reachable(e) {
			continue
		}
		kept := filepath.Join(first, e.ID)
		if _, err := os.Lstat(kept); err == nil {
			os.RemoveAll(e.Path)
			os.MkdirAll(filepath.Dir(e.Path), 0o755)
			if err := move(kept, e.Path); err != nil {
				errs = append(errs, fmt.Errorf("%s: %v", e.Path, err))
			}
		} else if absent[e.ID] {
			os.RemoveAll(e.Path)
		}
	}
	os.RemoveAll(first)
	return errors.Join(errs...)
}

// move renames src to dst, or copies it across file systems.
func move(src, dst string) error {
	err := os.Rename(src, dst)
	if !errors.Is(err, syscall.EXDEV) {
		return err
	}
	if err := copyAny(src, dst); err != nil {
		return err
	}
	return os.RemoveAll(src)
}

// copyAny copies a regular file (with its time), a symbolic link or a
// directory tree.
func copyAny(src, dst string) error {
	st, err := os.Lstat(src)
	switch {
	case err != nil:
		return err
	case st.IsDir():
		return os.CopyFS(dst, os.DirFS(src))
	case st.Mode()&fs.ModeSymlink != 0:
		t, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return os.Symlink(t, dst)
	case st.Mode().IsRegular():
		if err := copyFile(src, dst, st.Mode().Perm()); err != nil {
			return err
		}
		return os.Chtimes(dst, time.Now(), st.ModTime())
	}
	return fmt.Errorf("%s is not a file, a directory nor a link", src)
}
