package layer

import (
	"context"
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeWrapper writes a compiler "wrapper" script into a directory of its
// own and returns its path.
func fakeWrapper(t *testing.T, script string) string {
	t.Helper()
	cc := filepath.Join(t.TempDir(), "mpicc")
	if err := os.WriteFile(cc, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return cc
}

// The layer must build against any conforming mpi.h, one without Fortran
// too: testdata/nofortran holds the mpi.h that Open MPI 5.0.9 installs
// when built without Fortran (its README says where it comes from), where
// the optional Fortran types (MPI_INTEGER1, MPI_REAL4, MPI_COMPLEX8 ...)
// are not defined at all.
func TestBuildWithoutFortran(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler")
	}
	inc, err := filepath.Abs(filepath.Join("testdata", "nofortran"))
	if err != nil {
		t.Fatal(err)
	}
	// The header must lack them, or the build below proves nothing.
	probe := exec.Command("cc", "-E", "-I", inc, "-x", "c", "-")
	probe.Stdin = strings.NewReader("#include <mpi.h>\n#if defined(MPI_INTEGER1) || defined(MPI_INTEGER8) || defined(MPI_REAL4) || defined(MPI_REAL16) || defined(MPI_COMPLEX8) || defined(MPI_COMPLEX32)\nmpivet_has_fortran_types\n#endif\n")
	out, err := probe.CombinedOutput()
	if err != nil || strings.Contains(string(out), "mpivet_has_fortran_types") {
		t.Fatalf("testdata/nofortran/mpi.h is not an mpi.h without Fortran's optional types (%v)", err)
	}
	// Without optimisation or debug information (a fifth of the time): what
	// is tested is that the sources compile and link against this header.
	cc := fakeWrapper(t, `for a do shift; case "$a" in -O2) set -- "$@" -O0;; -g) ;; *) set -- "$@" "$a";; esac; done
exec cc -I'`+inc+`' "$@"`)
	t.Setenv("MPIVET_CACHE", t.TempDir())
	b, err := Build(cc, "Open MPI 5.0.9 without Fortran (mpi.h only)", nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(b.Library)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, _ := f.DynamicSymbols()
	wraps := false
	for _, s := range syms {
		wraps = wraps || s.Name == "MPI_Send" && s.Section != elf.SHN_UNDEF
	}
	if !wraps {
		t.Errorf("%s does not define MPI_Send", b.Library)
	}
	trimRealBuild(t, cc, "Open MPI 5.0.9 without Fortran (mpi.h only)", b)
}

// trimRealBuild checks the trim against a real build (b, of cc and
// identity), which this process uses: another process finds it locked,
// and a trim keeps it however old it is; a use marks it used; once no
// process holds it, a trim removes it whole, with its lock file.
func trimRealBuild(t *testing.T, cc, identity string, b *Built) {
	dir := filepath.Dir(b.Library)
	cache := filepath.Dir(dir)
	lock := dir + ".lock"
	if err := exec.Command("flock", "-n", "-x", lock, "true").Run(); err == nil {
		t.Error("another process could lock the build this process uses")
	}
	old := time.Now().Add(-30 * 24 * time.Hour)
	os.Chtimes(dir, old, old)
	u, ran, err := Trim(context.Background(), cache, time.Now())
	if !ran || err != nil || u.InUse != 1 || u.Builds.N != 0 {
		t.Fatalf("trim: ran %v, %v, %+v; want the build kept, in use", ran, err, u)
	}
	if _, err := Build(cc, identity, nil); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || time.Since(fi.ModTime()) > time.Minute {
		t.Fatalf("a use did not mark the build used (%v)", err)
	}
	os.Chtimes(dir, old, old)
	held.Lock()
	l := held.locks[lock]
	held.Unlock()
	l.f.Close() // as when this process exits
	l.f = nil
	u, _, err = Trim(context.Background(), cache, time.Now().Add(TrimInterval))
	if err != nil || u.Builds.N != 1 || u.Builds.Bytes < 100000 {
		t.Fatalf("trim: %v, %+v; want the build removed", err, u)
	}
	for _, p := range []string{dir, lock} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", p, err)
		}
	}
	if ents, _ := filepath.Glob(filepath.Join(cache, "discard-*")); len(ents) > 0 {
		t.Errorf("left: %v", ents)
	}
}

// A build that fails keeps the compiler's output and the sources, and its
// error says where; the next build of the same MPI removes them.
func TestBuildFailureKept(t *testing.T) {
	cc := fakeWrapper(t, `case "$*" in *-shared*) echo "mpivet-test: this compiler cannot build $*" >&2; exit 1;; esac`)
	cache := t.TempDir()
	t.Setenv("MPIVET_CACHE", cache)
	_, err := Build(cc, "a compiler that fails", nil)
	if err == nil {
		t.Fatal("the build did not fail")
	}
	logs, _ := filepath.Glob(filepath.Join(cache, "failed-*", buildLog))
	if len(logs) != 1 {
		t.Fatalf("%d kept build logs, want 1; error: %v", len(logs), err)
	}
	data, rerr := os.ReadFile(logs[0])
	if rerr != nil || !strings.Contains(string(data), "mpivet-test: this compiler cannot build") {
		t.Errorf("%s does not hold the compiler's output (%v):\n%s", logs[0], rerr, data)
	}
	if !strings.Contains(err.Error(), logs[0]) {
		t.Errorf("the error does not say where the compiler's output is (%s):\n%v", logs[0], err)
	}
	if _, serr := os.Stat(filepath.Join(filepath.Dir(logs[0]), "src", "record", "log.c")); serr != nil {
		t.Errorf("the sources are not kept beside the log: %v", serr)
	}
	if _, err := Build(cc, "a compiler that fails", nil); err == nil {
		t.Fatal("the second build did not fail")
	}
	if again, _ := filepath.Glob(filepath.Join(cache, "failed-*")); len(again) != 1 {
		t.Errorf("after a second failed build, %d kept directories, want 1: %v", len(again), again)
	}
}

// A build whose context is done (an interrupt) stops its compiler, and the
// compilers the wrapper started, at once: the error says it was stopped,
// and no failed build is kept.
func TestBuildStopped(t *testing.T) {
	// a "wrapper" whose compiler (a child of its own) would take a minute
	cc := fakeWrapper(t, `case "$*" in *-shared*) sleep 60 & wait;; esac`)
	cache := t.TempDir()
	t.Setenv("MPIVET_CACHE", cache)
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(300*time.Millisecond, func() { cancel(errors.New("interrupted (SIGINT)")) })
	start := time.Now()
	_, err := BuildContext(ctx, cc, "a compiler that takes a minute", nil)
	if err == nil || !strings.Contains(err.Error(), "was stopped (interrupted (SIGINT))") {
		t.Fatalf("the build's error: %v, want it stopped", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the build stopped after %v: its compiler was not stopped", d)
	}
	if kept, _ := filepath.Glob(filepath.Join(cache, "failed-*")); len(kept) > 0 {
		t.Errorf("a stopped build was kept as a failed one: %v", kept)
	}
}
