package layer

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// otherUID owns what "another user" planted; no account needs to exist.
const otherUID = 54321

// nobody is the unprivileged user the non-root cases run as.
const nobody = 65534

// cacheEnv points CacheDir at dir through MPIVET_CACHE, or, with dir "",
// at the fallback in tmp (HOME and XDG_CACHE_HOME unset).
func cacheEnv(t *testing.T, dir, tmp string) {
	t.Setenv("MPIVET_CACHE", dir)
	t.Setenv("HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("TMPDIR", tmp)
}

// sharedTmp makes a directory like /tmp: root's, 1777, reachable by all.
func sharedTmp(t *testing.T) string {
	d := t.TempDir()
	for p := d; p != "/" && p != os.TempDir(); p = filepath.Dir(p) {
		os.Chmod(p, 0o755)
	}
	if err := os.Chmod(d, os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	return d
}

func mode(t *testing.T, p string) os.FileMode {
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

func wantUnsafe(t *testing.T, err error, words string) {
	t.Helper()
	var u *UnsafeError
	if !errors.As(err, &u) || !strings.Contains(err.Error(), words) {
		t.Fatalf("got %v, want a refusal saying %q", err, words)
	}
}

// A cache mpivet creates is 0700, its parents too; the fallback without
// HOME is named after the uid.
func TestCacheCreatedPrivate(t *testing.T) {
	tmp := t.TempDir()
	cacheEnv(t, filepath.Join(tmp, "a", "b", "cache"), tmp)
	d, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{d, filepath.Dir(d)} {
		if m := mode(t, p); m.Perm() != 0o700 || !m.IsDir() {
			t.Errorf("%s: mode %v, want a directory 0700", p, m)
		}
	}
	shared := sharedTmp(t)
	cacheEnv(t, "", shared)
	d, err = CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(shared, fmt.Sprintf("mpivet-cache-%d", os.Geteuid())); d != want || mode(t, d).Perm() != 0o700 {
		t.Errorf("fallback %s (mode %v), want %s 0700", d, mode(t, d), want)
	}
}

// A cache others can write to, or another user's, or under a directory
// another user controls, is refused; root's sticky /tmp-like directories
// and links of one's own are not.
func TestCacheUnsafeRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to plant files of another user")
	}
	tmp := t.TempDir()
	mk := func(p string, m os.FileMode, uid int) string {
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, m)
		os.Lchown(p, uid, uid)
		return p
	}
	link := func(target, p string, uid int) string {
		os.Symlink(target, p)
		os.Lchown(p, uid, uid)
		return p
	}
	for _, tc := range []struct {
		name, dir, says string
	}{
		{"mode 0777", mk(filepath.Join(tmp, "open"), 0o777, 0), "can be written by its group or by others (mode 0777)"},
		{"mode 0770", mk(filepath.Join(tmp, "group"), 0o770, 0), "mode 0770"},
		{"another user's", mk(filepath.Join(tmp, "theirs"), 0o700, otherUID), "is owned by uid 54321, not by you"},
		{"under another user's", filepath.Join(mk(filepath.Join(tmp, "otherparent"), 0o755, otherUID), "c"), "who could replace what is in it"},
		{"deep under another user's", filepath.Join(tmp, "otherparent", ".cache", "mpivet"), "who could replace what is in it"},
		{"under a writable non-sticky", filepath.Join(mk(filepath.Join(tmp, "writable"), 0o777, 0), "c"), "is not sticky"},
		{"another user's link", link(mk(filepath.Join(tmp, "target"), 0o700, 0), filepath.Join(tmp, "link"), otherUID), "symbolic link owned by uid 54321"},
		{"a link to another user's", link(mk(filepath.Join(tmp, "target2"), 0o700, otherUID), filepath.Join(tmp, "link2"), 0), "is owned by uid 54321"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cacheEnv(t, tc.dir, tmp)
			_, before := os.Lstat(tc.dir)
			_, err := CacheDir()
			wantUnsafe(t, err, tc.says)
			if _, after := os.Lstat(tc.dir); before != nil && after == nil {
				t.Errorf("%s was created, then refused", tc.dir)
			}
			if !strings.Contains(err.Error(), "MPIVET_CACHE") {
				t.Errorf("the message does not say what to change: %v", err)
			}
		})
	}
	// Accepted: under root's sticky directory, a link of one's own to a
	// private directory, a 0755 directory of one's own.
	for _, dir := range []string{
		filepath.Join(sharedTmp(t), "c"),
		link(mk(filepath.Join(tmp, "target3"), 0o700, 0), filepath.Join(tmp, "link3"), 0),
		mk(filepath.Join(tmp, "readable"), 0o755, 0),
	} {
		cacheEnv(t, dir, tmp)
		if _, err := CacheDir(); err != nil {
			t.Errorf("%s refused: %v", dir, err)
		}
	}
}

// Without HOME, the fallback in a shared /tmp may have been made by
// another user first, or be a link they planted: refused, for root and for
// an unprivileged user alike (the latter run as nobody, in a copy of this
// test binary).
func TestCacheFallbackPlanted(t *testing.T) {
	if os.Getenv("MPIVET_TEST_AS_NOBODY") != "" {
		fallbackPlanted(t, os.Getenv("TMPDIR"))
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to plant files of another user")
	}
	shared := sharedTmp(t)
	fallbackPlanted(t, shared)
	exe := filepath.Join(shared, "layer.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run", "^TestCacheFallbackPlanted$", "-test.v")
	cmd.Env = []string{"MPIVET_TEST_AS_NOBODY=1", "TMPDIR=" + shared, "PATH=" + os.Getenv("PATH")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}

// fallbackPlanted plants the fallback cache of the effective user in tmp
// as a directory of root's or another user's, then as a link: each is
// refused. Run as root, the planter is otherUID; as nobody, it is root
// (what root made before the test ran as nobody) and otherUID.
func fallbackPlanted(t *testing.T, tmp string) {
	cacheEnv(t, "", tmp)
	fallback := filepath.Join(tmp, fmt.Sprintf("mpivet-cache-%d", os.Geteuid()))
	if os.Geteuid() == 0 {
		os.RemoveAll(fallback)
		os.Mkdir(fallback, 0o755)
		os.Lchown(fallback, otherUID, otherUID)
		_, err := CacheDir()
		wantUnsafe(t, err, "is owned by uid 54321, not by you (uid 0)")
		os.RemoveAll(fallback)
		os.Symlink(t.TempDir(), fallback)
		os.Lchown(fallback, otherUID, otherUID)
		_, err = CacheDir()
		wantUnsafe(t, err, "symbolic link owned by uid 54321")
		// As nobody's, made by root and by another user.
		theirs := filepath.Join(tmp, fmt.Sprintf("mpivet-cache-%d", nobody))
		os.Mkdir(theirs, 0o755)
		os.Mkdir(filepath.Join(tmp, "planted-by-other"), 0o755)
		os.Lchown(filepath.Join(tmp, "planted-by-other"), otherUID, otherUID)
		return
	}
	_, err := CacheDir()
	wantUnsafe(t, err, "is owned by uid 0, not by you (uid 65534)")
	cacheEnv(t, filepath.Join(tmp, "planted-by-other"), tmp)
	_, err = CacheDir()
	wantUnsafe(t, err, "is owned by uid 54321, not by you (uid 65534)")
	// A fresh one of nobody's own is accepted, and private.
	cacheEnv(t, filepath.Join(tmp, "nobodys"), tmp)
	d, err := CacheDir()
	if err != nil || mode(t, d).Perm() != 0o700 {
		t.Fatalf("nobody's own cache: %v", err)
	}
}
