package corpus

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mpivet/launch"
)

// plantVictim is a file that must keep its content (in the attack, a
// file of root's that a link planted in a run directory points to).
func plantVictim(t *testing.T) string {
	t.Helper()
	v := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(v, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return v
}

func victimKept(t *testing.T, v string) {
	t.Helper()
	if b, err := os.ReadFile(v); err != nil || string(b) != "precious\n" {
		t.Errorf("%s was written through a link: %q, %v", v, b, err)
	}
}

// private checks that every directory under dir is 0700 and every file
// 0600, and that no symbolic link is left in it.
func private(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Error(err)
			return nil
		}
		info, _ := d.Info()
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			t.Errorf("%s: still a link", p)
		case d.IsDir() && info.Mode().Perm() != 0o700:
			t.Errorf("%s: directory mode %04o, want 0700", p, info.Mode().Perm())
		case !d.IsDir() && info.Mode().Perm() != 0o600:
			t.Errorf("%s: file mode %04o, want 0600", p, info.Mode().Perm())
		}
		return nil
	})
}

// Links planted in a run directory where mpivet writes (command.json,
// output.txt, layer.conf, the lock, an interleaving's directory, the
// files' store) before the run, and by each rank where its supervisor
// writes how it ended, are replaced: what they point to is never written.
// The run ends as without them; what it made is 0700 and 0600.
func TestPlantedLinks(t *testing.T) {
	parallel(t)
	for _, m := range available(t) {
		t.Run(m.name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "plant")
			compile(t, m, filepath.Join("..", "testdata", "rundir", "plant.c"), bin)
			v, vdir := plantVictim(t), t.TempDir()
			dir := filepath.Join(t.TempDir(), "run")
			os.Mkdir(dir, 0o700)
			for _, name := range []string{"command.json", "output.txt", "layer.conf", "lock"} {
				os.Symlink(v, filepath.Join(dir, name))
			}
			for _, name := range []string{"interleaving-2", "files"} {
				os.Symlink(vdir, filepath.Join(dir, name))
			}
			out, code := mpivet(t, "run", "-n", "3", "--timeout", "60s", "--dir", dir, "--no-color", bin, v)
			if code != 0 || !strings.Contains(out, "verdict: ok") || !strings.Contains(out, "in 2 interleavings") {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			victimKept(t, v)
			if ents, _ := os.ReadDir(vdir); len(ents) != 0 {
				t.Errorf("%s written through a link: %d entries", vdir, len(ents))
			}
			private(t, dir)
			if exits, _ := filepath.Glob(filepath.Join(dir, "p.*.exit")); len(exits) != 3 {
				t.Errorf("%d exit records, want 3", len(exits))
			}
		})
	}
}

// The layer opens each rank's log, state page and timing stamps, named by
// its pid, without following a link planted with that name: a shell plants
// them under its own pid and becomes the program with the layer preloaded
// (exec keeps the pid). Under both MPIs: each has its build of the layer.
func TestPlantedLinksLayer(t *testing.T) {
	parallel(t)
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range available(t) {
		t.Run(m.name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "plant")
			compile(t, m, filepath.Join("..", "testdata", "rundir", "plant.c"), bin)
			sess, err := launch.Prepare(launch.Options{NP: 1, Program: bin})
			if err != nil {
				t.Fatal(err)
			}
			v, dir := plantVictim(t), filepath.Join(t.TempDir(), "run")
			os.Mkdir(dir, 0o700)
			script := `for ext in log state time; do ln -s "$1" "$2/p.$3.$$.$ext" || exit 9; done; echo $$
				exec env MPIVET_DIR="$2" MPIVET_TIMING=1 LD_PRELOAD="$4" /bin/true`
			out, err := exec.Command("/bin/sh", "-c", script, "sh", v, dir, host, sess.Layer.Library).Output()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			pid := strings.TrimSpace(string(out))
			victimKept(t, v)
			private(t, dir)
			magic := make([]byte, 8) // (the log is sparse, 16 GiB long)
			f, err := os.Open(filepath.Join(dir, "p."+host+"."+pid+".log"))
			if err == nil {
				_, err = f.ReadAt(magic, 0)
				f.Close()
			}
			if err != nil || string(magic) != "MPIVET01" {
				t.Errorf("the rank's log: %q, %v", magic, err)
			}
		})
	}
}

// A run directory someone else could write in, or that is someone else's,
// is refused with a clear message (exit 2), before anything is written.
func TestRunDirRefused(t *testing.T) {
	parallel(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give directories to another user and run mpivet as nobody")
	}
	prog := notMPI(t, t.TempDir()) // the directory is refused before the program is run
	open := filepath.Join(t.TempDir(), "open")
	os.Mkdir(open, 0o755)
	os.Chmod(open, 0o777)
	nobodys := filepath.Join(t.TempDir(), "nobodys")
	os.Mkdir(nobodys, 0o700)
	os.Chown(nobodys, nobody, nobody)
	for _, tc := range []struct{ dir, msg string }{
		{open, "is writable by others (mode 0777): refused"},
		{filepath.Join(open, "run"), "holding the run directory is writable by others"},
		{nobodys, "is owned by another user (uid 65534"},
	} {
		out, code := mpivet(t, "run", "-n", "2", "--dir", tc.dir, prog)
		if code != 2 || !strings.Contains(out, tc.msg) {
			t.Errorf("--dir %s: exit %d, want 2 and %q:\n%s", tc.dir, code, tc.msg, out)
		}
		if ents, _ := os.ReadDir(tc.dir); len(ents) != 0 {
			t.Errorf("--dir %s: written in", tc.dir)
		}
	}
	t.Run("nobody", runDirRefusedNobody)
}

const nobody = 65534

// notMPI puts in dir a program that is not an MPI program (a copy of
// true(1)) that anyone may run: mpivet refuses it (exit 2) once it has
// checked its run directory.
func notMPI(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Skip("no /bin/true")
	}
	prog := filepath.Join(dir, "notmpi")
	if err := os.WriteFile(prog, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return prog
}

// asNobody runs mpivet (a copy nobody may run) as nobody in directory wd,
// with TMPDIR tmp.
func asNobody(t *testing.T, bin, wd, tmp string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = wd
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "HOME="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// As nobody: root's directory is refused as --dir; without --dir, where
// ./.mpivet cannot be made, the per-user fallback in TMPDIR is used, made
// 0700 and nobody's, and one there already that is not nobody's own (a
// directory of root's, a link) is refused.
func runDirRefusedNobody(t *testing.T) {
	shared, err := os.MkdirTemp("", "mpivet-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(shared) })
	os.Chmod(shared, 0o755)
	bin := filepath.Join(shared, "mpivet")
	data, _ := os.ReadFile(mpivetBin)
	os.WriteFile(bin, data, 0o755)
	tmp := filepath.Join(shared, "tmp")
	os.Mkdir(tmp, 0o755)
	os.Chmod(tmp, 0o777|os.ModeSticky)
	roots := filepath.Join(shared, "roots") // root's working directory: no ./.mpivet for nobody
	os.Mkdir(roots, 0o755)
	prog := notMPI(t, shared)
	if out, code := asNobody(t, bin, roots, tmp, "run", "-n", "2", "--dir", roots, prog); code != 2 || !strings.Contains(out, "is owned by another user (uid 0, you are 65534)") {
		t.Errorf("--dir of root's: exit %d:\n%s", code, out)
	}
	fallback := filepath.Join(tmp, "mpivet-65534")
	out, code := asNobody(t, bin, roots, tmp, "run", "-n", "2", prog)
	if code != 2 || !strings.Contains(out, "is not an MPI program") {
		t.Errorf("fallback: exit %d, want 2 for a program that is not an MPI program:\n%s", code, out)
	}
	// (its run directory, made and left empty of records, is removed again)
	private(t, fallback)
	if st, err := os.Stat(fallback); err != nil || st.Sys().(*syscall.Stat_t).Uid != nobody {
		t.Errorf("%s: not nobody's (%v)", fallback, err)
	}
	os.RemoveAll(fallback)
	os.Mkdir(fallback, 0o700) // root's, in nobody's name
	if out, code := asNobody(t, bin, roots, tmp, "run", "-n", "2", prog); code != 2 || !strings.Contains(out, "mpivet-65534 is owned by another user (uid 0)") {
		t.Errorf("fallback of root's: exit %d:\n%s", code, out)
	}
	os.Remove(fallback)
	os.Symlink(roots, fallback)
	os.Lchown(fallback, nobody, nobody)
	if out, code := asNobody(t, bin, roots, tmp, "run", "-n", "2", prog); code != 2 || !strings.Contains(out, "mpivet-65534 is not a directory (a link?)") {
		t.Errorf("fallback a link: exit %d:\n%s", code, out)
	}
}

// Two runs in one --dir: the second refuses at once (exit 2), naming the
// first's pid, and the first ends with its own verdict. A replay takes the
// lock too; mpivet dump, a reader, needs none.
func TestOneRunPerDir(t *testing.T) {
	parallel(t)
	m := available(t)[0]
	bin := filepath.Join(t.TempDir(), "plant")
	compile(t, m, filepath.Join("..", "testdata", "rundir", "plant.c"), bin)
	dir, goOn := filepath.Join(t.TempDir(), "run"), filepath.Join(t.TempDir(), "go-on")
	// the first run waits before its replay until the second has been refused (at most 60 s)
	hook := "for i in $(seq 1200); do [ -e " + goOn + " ] && exit 0; sleep 0.05; done"
	first := exec.Command(mpivetBin, "run", "-n", "3", "--timeout", "60s", "--dir", dir, "--no-color", "--replay-hook", hook, bin)
	var firstOut strings.Builder
	first.Stdout, first.Stderr = &firstOut, &firstOut
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	holder := strconv.Itoa(first.Process.Pid)
	for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
		if b, _ := os.ReadFile(filepath.Join(dir, "lock")); strings.TrimSpace(string(b)) == holder {
			break
		}
		if time.Since(start) > 30*time.Second {
			first.Process.Kill()
			t.Fatalf("the first run did not lock %s", dir)
		}
	}
	out, code := mpivet(t, "run", "-n", "3", "--dir", dir, bin)
	if code != 2 || !strings.Contains(out, "is in use by another mpivet (pid "+holder+")") {
		t.Errorf("second run: exit %d:\n%s", code, out)
	}
	os.WriteFile(goOn, nil, 0o600)
	err := first.Wait()
	if err != nil || !strings.Contains(firstOut.String(), "verdict: ok") {
		t.Fatalf("first run: %v:\n%s", err, firstOut.String())
	}
	// while the test holds the lock
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	if out, code := mpivet(t, "replay", dir, "--interleaving", "2"); code != 2 || !strings.Contains(out, "is in use by another mpivet") {
		t.Errorf("replay: exit %d:\n%s", code, out)
	}
	if out, code := mpivet(t, "dump", dir); code != 0 || !strings.Contains(out, "MPI_Recv") {
		t.Errorf("dump: exit %d:\n%s", code, out)
	}
}
