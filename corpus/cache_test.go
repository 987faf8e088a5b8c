package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"mpivet/launch"
)

// The layer cache (layer/cache.go, layer/manifest.go) end to end. Building
// the layer takes one to two minutes on a 2-core machine, so these tests
// start from the build in the user's cache (which the rest of the corpus
// uses too) and copy it; only the damaged-build test builds, once.

const cacheHello = `#include <mpi.h>
int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
`

// plantedLib leaves a marker if it is ever loaded.
const plantedLib = `#include <stdio.h>
__attribute__((constructor)) static void planted(void)
{
	FILE *f = fopen(MARKER, "a");
	if (f) {
		fputs("library loaded\n", f);
		fclose(f);
	}
}
`

// cacheSeed builds the hello program for m in dir and returns it with the
// directory of its layer in the user's cache (built there if need be).
func cacheSeed(t *testing.T, m mpiImpl, dir string) (bin, key string) {
	src := filepath.Join(dir, "hello.c")
	os.WriteFile(src, []byte(cacheHello), 0o644)
	bin = filepath.Join(dir, "hello")
	compile(t, m, src, bin)
	sess, err := launch.Prepare(launch.Options{NP: 2, Program: bin})
	if err != nil {
		t.Fatal(err)
	}
	return bin, filepath.Dir(sess.Layer.Library)
}

// copyBuild copies a cached build (its files) into cache, under its key.
func copyBuild(t *testing.T, key, cache string) string {
	dst := filepath.Join(cache, filepath.Base(key))
	if err := os.MkdirAll(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"libmpivet.so", "mpivet-supervise", "manifest.json"} {
		data, err := os.ReadFile(filepath.Join(key, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// cacheRun runs mpivet on bin with env (HOME, XDG_CACHE_HOME, MPIVET_CACHE
// and TMPDIR taken from env only) as uid, started but not waited for.
func cacheRun(t *testing.T, env []string, uid int, mpivet, bin, out string) *exec.Cmd {
	cmd := exec.Command(mpivet, "run", "-n", "2", "--timeout", "60s", "--no-color", "--dir", filepath.Join(filepath.Dir(out), "run-"+filepath.Base(out)), bin)
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "HOME", "XDG_CACHE_HOME", "MPIVET_CACHE", "TMPDIR":
		default:
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	f.Chown(uid, uid)
	cmd.Stdout, cmd.Stderr = f, f
	if uid != os.Geteuid() {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return cmd
}

// finish waits for a run and returns its output and exit status.
func finish(t *testing.T, cmd *exec.Cmd) (string, int) {
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile(cmd.Stdout.(*os.File).Name())
	return string(out), code
}

func buildID(t *testing.T, key string) string {
	var m struct {
		BuildID string `json:"build_id"`
	}
	data, _ := os.ReadFile(filepath.Join(key, "manifest.json"))
	if err := json.Unmarshal(data, &m); err != nil || m.BuildID == "" {
		t.Fatalf("manifest of %s: %v %s", key, err, data)
	}
	return m.BuildID
}

// A truncated cached library is found and built again, once, by one of
// two mpivet runs started together; the other waits for that build, and
// both run the program correctly. What a build killed midway left is
// removed. One MPI: the cache does not depend on it, and a build is long.
func TestLayerCacheDamagedRebuiltOnce(t *testing.T) {
	// The build is a minute of one core's time: in parallel with the
	// corpus, whose programs mostly wait.
	parallel(t)
	m := available(t)[0]
	dir := t.TempDir()
	bin, seed := cacheSeed(t, m, dir)
	cache := filepath.Join(dir, "cache")
	key := copyBuild(t, seed, cache)
	lib := filepath.Join(key, "libmpivet.so")
	fi, _ := os.Stat(lib)
	if err := os.Truncate(lib, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
	leftover := filepath.Join(cache, "build-"+filepath.Base(key)+"-killed")
	os.MkdirAll(filepath.Join(leftover, "out"), 0o700)
	env := []string{"MPIVET_CACHE=" + cache}
	a := cacheRun(t, env, os.Geteuid(), mpivetBin, bin, filepath.Join(dir, "a.txt"))
	b := cacheRun(t, env, os.Geteuid(), mpivetBin, bin, filepath.Join(dir, "b.txt"))
	outA, codeA := finish(t, a)
	outB, codeB := finish(t, b)
	for _, r := range []struct {
		out  string
		code int
	}{{outA, codeA}, {outB, codeB}} {
		if r.code != 0 || !strings.Contains(r.out, "verdict: ok") {
			t.Errorf("exit %d, want 0 and verdict ok:\n%s", r.code, r.out)
		}
	}
	both := outA + outB
	if n := strings.Count(both, "mpivet: building the layer"); n != 1 {
		t.Errorf("%d builds, want 1:\n%s", n, both)
	}
	if n := strings.Count(both, "libmpivet.so is not what was built"); n != 1 {
		t.Errorf("the damage reported %d times, want once:\n%s", n, both)
	}
	if buildID(t, key) == buildID(t, seed) {
		t.Errorf("the damaged build is still in the cache")
	}
	if _, err := os.Stat(leftover); !os.IsNotExist(err) {
		t.Errorf("the killed build's directory is still there (%v)", err)
	}
}

// plant makes, in cache, a build of key whose library and supervisor
// leave a marker when they are loaded or run (the supervisor then runs the
// real one), with a manifest of their true hashes, all owned by uid: what
// another user could leave where a victim's mpivet looks for its cache.
func plant(t *testing.T, seed, cache, marker string, uid int) {
	key := copyBuild(t, seed, cache)
	src := filepath.Join(t.TempDir(), "planted.c")
	os.WriteFile(src, []byte(plantedLib), 0o644)
	lib := filepath.Join(key, "libmpivet.so")
	if out, err := exec.Command("cc", "-shared", "-fPIC", "-o", lib, fmt.Sprintf("-DMARKER=%q", marker), src).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if err := os.Rename(filepath.Join(key, "mpivet-supervise"), filepath.Join(key, "real-supervise")); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\necho supervisor run >> %s\nexec %s \"$@\"\n", marker, filepath.Join(key, "real-supervise"))
	os.WriteFile(filepath.Join(key, "mpivet-supervise"), []byte(script), 0o755)
	sums := map[string]string{}
	for _, f := range []string{"libmpivet.so", "mpivet-supervise"} {
		data, _ := os.ReadFile(filepath.Join(key, f))
		sum := sha256.Sum256(data)
		sums[f] = hex.EncodeToString(sum[:])
	}
	var m map[string]any
	data, _ := os.ReadFile(filepath.Join(key, "manifest.json"))
	json.Unmarshal(data, &m)
	m["sha256"] = sums
	data, _ = json.Marshal(m)
	os.WriteFile(filepath.Join(key, "manifest.json"), data, 0o644)
	filepath.Walk(cache, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			os.Lchown(p, uid, uid)
			if fi.IsDir() {
				os.Chmod(p, 0o755)
			}
		}
		return err
	})
}

// Without HOME, mpivet's cache is mpivet-cache-UID in the temporary
// directory. One planted there by another user is refused, for root and
// for an unprivileged user (nobody), and its library is never loaded nor
// its supervisor run; the same build owned by the victim would have been
// used (the control case), so the plant is one the old cache would have
// loaded.
func TestLayerCachePlanted(t *testing.T) {
	parallel(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to plant files of another user and to run as nobody")
	}
	const other, nobody = 54321, 65534
	for _, m := range available(t) {
		t.Run(m.name, func(t *testing.T) {
			dir := t.TempDir()
			bin, seed := cacheSeed(t, m, dir)
			shared := t.TempDir() // like /tmp: root's, sticky, open to all
			for p := shared; p != os.TempDir() && p != "/"; p = filepath.Dir(p) {
				os.Chmod(p, 0o755)
			}
			os.Chmod(shared, os.ModeSticky|0o777)
			exe := filepath.Join(shared, "mpivet")
			data, _ := os.ReadFile(mpivetBin)
			os.WriteFile(exe, data, 0o755)
			prog := filepath.Join(shared, "hello")
			data, _ = os.ReadFile(bin)
			os.WriteFile(prog, data, 0o755)
			env := []string{"TMPDIR=" + shared}
			for _, tc := range []struct {
				name          string
				victim, owner int
			}{{"root", 0, other}, {"nobody", nobody, other}, {"control", 0, 0}} {
				marker := filepath.Join(shared, "marker-"+tc.name)
				cache := filepath.Join(shared, fmt.Sprintf("mpivet-cache-%d", tc.victim))
				os.RemoveAll(cache)
				plant(t, seed, cache, marker, tc.owner)
				out, code := finish(t, cacheRun(t, env, tc.victim, exe, prog, filepath.Join(shared, tc.name+".txt")))
				_, err := os.Stat(marker)
				if tc.name == "control" {
					if err != nil {
						t.Errorf("control: the planted build was not used (%v), so the test proves nothing:\n%s", err, out)
					}
					continue
				}
				if err == nil {
					t.Errorf("%s: the planted library or supervisor ran:\n%s", tc.name, out)
				}
				want := fmt.Sprintf("is owned by uid %d, not by you (uid %d)", tc.owner, tc.victim)
				if code != 2 || !strings.Contains(out, "will not use the layer cache") || !strings.Contains(out, want) {
					t.Errorf("%s: exit %d, want 2 and a refusal saying %q:\n%s", tc.name, code, want, out)
				}
			}
		})
	}
}

// A verification trims the cache in the background of its run, once a
// day: an old unused build, an old answer and what a killed removal left
// go; its own build (old, but used: locked while the run uses it, and
// marked used), a recent answer and what is not the cache's stay. One
// MPI: the cache does not depend on it.
func TestLayerCacheTrimmedByRun(t *testing.T) {
	parallel(t)
	m := available(t)[0]
	dir := t.TempDir()
	bin, seed := cacheSeed(t, m, dir)
	cache := filepath.Join(dir, "cache")
	own := copyBuild(t, seed, cache)
	old := time.Now().Add(-30 * 24 * time.Hour)
	mk := func(name string, isDir bool) string {
		p := filepath.Join(cache, name)
		if isDir {
			os.Mkdir(p, 0o700)
			os.WriteFile(filepath.Join(p, "libmpivet.so"), []byte("x"), 0o600)
		} else {
			os.WriteFile(p, []byte("{}"), 0o600)
		}
		os.Chtimes(p, old, old)
		return p
	}
	os.Chtimes(own, old, old)
	gone := []string{mk("00000000000000aa", true), mk("discard-5", true), mk("probe-mpitools-0123456789abcdef0123", false)}
	kept := []string{own, mk("lammps-omp", true), mk("topology-vm.xml", false)}
	cmd := cacheRun(t, []string{"MPIVET_CACHE=" + cache}, os.Geteuid(), mpivetBin, bin, filepath.Join(dir, "out.txt"))
	if out, code := finish(t, cmd); code != 0 || !strings.Contains(out, "verdict: ok") {
		t.Fatalf("exit %d, want 0 and verdict ok:\n%s", code, out)
	}
	for _, p := range gone {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", p, err)
		}
	}
	for _, p := range kept {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed (%v)", p, err)
		}
	}
	if fi, err := os.Stat(own); err != nil || time.Since(fi.ModTime()) > time.Hour {
		t.Errorf("the run's build was not marked used (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(cache, "trim.txt")); err != nil {
		t.Errorf("no trim marker: %v", err)
	}
}
