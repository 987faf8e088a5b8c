package rundir

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// victim is a file that must keep its content: what a link planted in a
// run directory points to (in the attack, a file of root's).
func victim(t *testing.T) string {
	t.Helper()
	v := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(v, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return v
}

func keeps(t *testing.T, v string) {
	t.Helper()
	if b, err := os.ReadFile(v); err != nil || string(b) != "precious\n" {
		t.Errorf("%s was written through a link: %q, %v", v, b, err)
	}
}

// regular checks that name is a regular file (not a link) of mode perm.
func regular(t *testing.T, name string, perm os.FileMode) {
	t.Helper()
	st, err := os.Lstat(name)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Mode().IsRegular() && !st.IsDir() || st.Mode().Perm() != perm {
		t.Errorf("%s: mode %v, want a regular file or directory %04o", name, st.Mode(), perm)
	}
}

func TestWriteFileReplacesLink(t *testing.T) {
	dir, v := t.TempDir(), victim(t)
	name := filepath.Join(dir, "command.json")
	if err := os.Symlink(v, name); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(name, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	keeps(t, v)
	regular(t, name, FileMode)
	if b, _ := os.ReadFile(name); string(b) != "{}\n" {
		t.Errorf("%s: %q", name, b)
	}
	// a link to a name that does not exist yet is not created through either
	ghost := filepath.Join(t.TempDir(), "ghost")
	os.Remove(name)
	os.Symlink(ghost, name)
	if err := WriteFile(name, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(ghost); err == nil {
		t.Errorf("%s was created through a link", ghost)
	}
}

func TestMkdirReplacesLink(t *testing.T) {
	dir, target := t.TempDir(), t.TempDir()
	d := filepath.Join(dir, "interleaving-2")
	if err := os.Symlink(target, d); err != nil {
		t.Fatal(err)
	}
	if err := Mkdir(d); err != nil {
		t.Fatal(err)
	}
	regular(t, d, DirMode)
	if ents, _ := os.ReadDir(target); len(ents) != 0 {
		t.Errorf("%s has entries", target)
	}
	if err := Mkdir(d); err != nil { // there already: fine
		t.Fatal(err)
	}
}

// A second lock of a run directory fails at once, naming the holder; the
// lock file planted as a link is replaced, not followed.
func TestLock(t *testing.T) {
	dir, v := t.TempDir(), victim(t)
	os.Symlink(v, filepath.Join(dir, LockFile))
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	keeps(t, v)
	regular(t, filepath.Join(dir, LockFile), FileMode)
	_, err = Acquire(dir)
	if err == nil || !strings.Contains(err.Error(), "in use by another mpivet (pid "+strconv.Itoa(os.Getpid())+")") {
		t.Errorf("second lock: %v", err)
	}
	l.Release()
	l, err = Acquire(dir)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	l.Release()
}

func TestPrepare(t *testing.T) {
	base := t.TempDir()
	d := filepath.Join(base, "a", "run")
	if err := Prepare(d); err != nil {
		t.Fatal(err)
	}
	regular(t, d, DirMode)
	regular(t, filepath.Dir(d), DirMode)
	// in a sticky directory open to all (like /tmp): a private directory
	sticky := filepath.Join(base, "tmp")
	os.Mkdir(sticky, 0o755)
	os.Chmod(sticky, 0o777|os.ModeSticky)
	if err := Prepare(filepath.Join(sticky, "run")); err != nil {
		t.Errorf("in a sticky directory: %v", err)
	}
	for _, tc := range []struct {
		name string
		make func(string) string // makes the case under a new directory, returns the --dir
		msg  string
	}{
		{"open", func(b string) string { d := filepath.Join(b, "d"); os.Mkdir(d, 0o755); os.Chmod(d, 0o777); return d }, "writable by others"},
		{"group", func(b string) string { d := filepath.Join(b, "d"); os.Mkdir(d, 0o755); os.Chmod(d, 0o775); return d }, "writable by others"},
		{"sticky", func(b string) string { os.Chmod(b, 0o777|os.ModeSticky); return b }, "use a directory of your own in it, e.g. --dir "},
		{"parent", func(b string) string { os.Chmod(b, 0o777); return filepath.Join(b, "run") }, "holding the run directory is writable by others"},
		{"file", func(b string) string { f := filepath.Join(b, "f"); os.WriteFile(f, nil, 0o600); return f }, "not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Prepare(tc.make(t.TempDir()))
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("got %v, want %q", err, tc.msg)
			}
		})
	}
}

// Directories of another user are refused (root: the test gives them to
// nobody).
func TestPrepareOtherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give a directory to another user")
	}
	const nobody = 65534
	other := func(name string) string {
		d := filepath.Join(t.TempDir(), name)
		os.Mkdir(d, 0o700)
		if err := os.Lchown(d, nobody, nobody); err != nil {
			t.Fatal(err)
		}
		return d
	}
	if err := Prepare(other("run")); err == nil || !strings.Contains(err.Error(), "owned by another user (uid 65534") {
		t.Errorf("run directory of nobody's: %v", err)
	}
	if err := Prepare(filepath.Join(other("parent"), "run")); err == nil || !strings.Contains(err.Error(), "holding the run directory is owned by another user") {
		t.Errorf("in a directory of nobody's: %v", err)
	}
	// a link of another user's, in a sticky directory
	sticky := filepath.Join(t.TempDir(), "tmp")
	os.Mkdir(sticky, 0o755)
	os.Chmod(sticky, 0o777|os.ModeSticky)
	link := filepath.Join(sticky, "run")
	os.Symlink(t.TempDir(), link)
	os.Lchown(link, nobody, nobody)
	if err := Prepare(link); err == nil || !strings.Contains(err.Error(), "symbolic link owned by another user") {
		t.Errorf("a link of nobody's: %v", err)
	}
}

// The fallback base is the user's own: one that is there must be a
// directory of the user's, closed to others.
func TestFallback(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	d, err := Fallback()
	if err != nil {
		t.Fatal(err)
	}
	if d != filepath.Join(tmp, "mpivet-"+strconv.Itoa(os.Geteuid())) {
		t.Errorf("fallback %s", d)
	}
	regular(t, d, DirMode)
	os.Chmod(d, 0o755)
	if _, err := Fallback(); err == nil || !strings.Contains(err.Error(), "open to others") {
		t.Errorf("mode 0755: %v", err)
	}
	os.Remove(d)
	os.Symlink(t.TempDir(), d)
	if _, err := Fallback(); err == nil || !strings.Contains(err.Error(), "not a directory (a link?)") {
		t.Errorf("a link: %v", err)
	}
	if os.Geteuid() == 0 {
		os.Remove(d)
		os.Mkdir(d, 0o700)
		syscall.Chown(d, 65534, 65534)
		if _, err := Fallback(); err == nil || !strings.Contains(err.Error(), "owned by another user") {
			t.Errorf("another user's: %v", err)
		}
	}
}
