package filestate

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// keep writes what a rank writes in the store before it first touches
// path (layer/src/files/keep.c): the content or link target, and the
// manifest line.
func keep(t *testing.T, s *Store, id, path string) {
	t.Helper()
	kind, mode, size, mtime := Absent, os.FileMode(0), int64(0), time.Unix(0, 0)
	if st, err := os.Lstat(path); err == nil {
		mode, size, mtime = st.Mode().Perm(), st.Size(), st.ModTime()
		switch {
		case st.IsDir():
			kind = Dir
		case st.Mode()&os.ModeSymlink != 0:
			kind = Link
			target, _ := os.Readlink(path)
			os.WriteFile(filepath.Join(s.Dir, id), []byte(target), 0o600)
		default:
			kind = File
			data, _ := os.ReadFile(path)
			os.WriteFile(filepath.Join(s.Dir, id), data, 0o600)
		}
	}
	f, err := os.OpenFile(filepath.Join(s.Dir, "manifest"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	fmt.Fprintf(f, "%s %s %o %d %d.%09d %s %s\n", kind, id, mode, size, mtime.Unix(), mtime.Nanosecond(), host, path)
	f.Close()
	os.WriteFile(filepath.Join(s.Dir, id+".claim"), nil, 0o644)
	os.WriteFile(filepath.Join(s.Dir, id+".done"), nil, 0o644)
}

// A first run that appends to a log, replaces a link, removes a file and
// makes an output directory with a file; a replay that does it otherwise.
// Each Restore brings back the state before the first run, and
// PutFirstBack what the first run left.
func TestRestoreAndFirst(t *testing.T) {
	work := t.TempDir()
	s, err := New(filepath.Join(t.TempDir(), "files"))
	if err != nil {
		t.Fatal(err)
	}
	p := func(name string) string { return filepath.Join(work, name) }
	os.WriteFile(p("log"), []byte("one\n"), 0o640)
	os.WriteFile(p("old"), []byte("old"), 0o644)
	os.Symlink("a", p("link"))
	before := snapshot(t, work)

	// the first run
	for i, name := range []string{"log", "link", "old", "out", "out/result"} {
		keep(t, s, fmt.Sprintf("%016x", i+1), p(name))
	}
	appendTo(t, p("log"), "two\n")
	os.Remove(p("link"))
	os.Symlink("b", p("link"))
	os.Remove(p("old"))
	os.Mkdir(p("out"), 0o755)
	os.WriteFile(p("out/result"), []byte("first"), 0o644)
	first := snapshot(t, work)
	left, err := s.KeepFirst()
	want := []string{p("link"), p("log"), p("old"), p("out"), p("out/result")}
	if err != nil || !slices.Equal(left, want) {
		t.Fatalf("KeepFirst: %v, %v; want %v", left, err, want)
	}
	restore(t, s, work, before)

	// a replay: other content, and a file the first run did not touch
	keep(t, s, "0000000000000009", p("extra"))
	appendTo(t, p("log"), "other\n")
	os.WriteFile(p("extra"), nil, 0o644)
	os.Mkdir(p("out"), 0o755)
	restore(t, s, work, before)

	if err := s.PutFirstBack(); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, work); !equal(got, first) {
		t.Errorf("after PutFirstBack: %v\nwant what the first run left: %v", got, first)
	}
}

func restore(t *testing.T, s *Store, work string, before map[string]string) {
	t.Helper()
	if r, err := s.Restore(); err != nil || len(r.Failed) > 0 {
		t.Fatalf("Restore: %+v, %v", r, err)
	}
	if got := snapshot(t, work); !equal(got, before) {
		t.Fatalf("after Restore: %v\nwant the state before: %v", got, before)
	}
}

func appendTo(t *testing.T, path, s string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(s)
	f.Close()
}

// snapshot describes every file under dir: kind, mode, content or target,
// and a regular file's modification time.
func snapshot(t *testing.T, dir string) map[string]string {
	m := map[string]string{}
	filepath.Walk(dir, func(p string, st os.FileInfo, err error) error {
		if err != nil || p == dir {
			return err
		}
		switch {
		case st.IsDir():
			m[p] = "dir " + st.Mode().Perm().String()
		case st.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			m[p] = "link " + target
		default:
			data, _ := os.ReadFile(p)
			m[p] = fmt.Sprintf("file %s %q %d", st.Mode().Perm(), data, st.ModTime().UnixNano())
		}
		return nil
	})
	return m
}

func equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A claim a stopped rank left without keeping the file is cleared, so
// that the next run keeps it.
func TestStaleClaims(t *testing.T) {
	s, _ := New(t.TempDir())
	os.WriteFile(filepath.Join(s.Dir, "00000000000000aa.claim"), nil, 0o644)
	os.WriteFile(filepath.Join(s.Dir, "00000000000000aa"), []byte("partial"), 0o644)
	keep(t, s, "00000000000000bb", filepath.Join(t.TempDir(), "x"))
	if _, err := s.Restore(); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"00000000000000aa.claim": false, "00000000000000aa": false, "00000000000000bb.claim": true} {
		if _, err := os.Stat(filepath.Join(s.Dir, name)); (err == nil) != want {
			t.Errorf("%s: present %v, want %v", name, err == nil, want)
		}
	}
}

// A file another host kept is restored when it is on the store's file
// system, which the hosts share, and left alone on another file system
// (that host's own: this host's file of the same name is not it).
func TestOtherHosts(t *testing.T) {
	s, _ := New(t.TempDir())
	shared := filepath.Join(t.TempDir(), "out")
	own, err := os.CreateTemp("/dev/shm", "mpivet-filestate-") // tmpfs: not the store's file system
	if err != nil {
		t.Skip("no /dev/shm")
	}
	own.Close()
	defer os.Remove(own.Name())
	f, _ := os.Create(filepath.Join(s.Dir, "manifest"))
	fmt.Fprintf(f, "absent 0000000000000001 0 0 0.000000000 otherhost %s\n", shared)
	fmt.Fprintf(f, "absent 0000000000000002 0 0 0.000000000 otherhost %s\n", own.Name())
	f.Close()
	os.WriteFile(shared, nil, 0o644)
	if r, err := s.Restore(); err != nil || len(r.Changed) != 1 || r.Changed[0] != shared {
		t.Fatalf("Restore: %+v, %v; want only %s", r, err, shared)
	}
	if _, err := os.Stat(own.Name()); err != nil {
		t.Errorf("this host's %s was removed: %v", own.Name(), err)
	}
}
