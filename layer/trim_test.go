package layer

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"mpivet/internal/probecache"
)

// cacheFixture is a cache with entries of every kind, old and recent,
// and things that are not the cache's, some old, some links out of it.
type cacheFixture struct {
	cache, outside string
	now            time.Time
}

const (
	oldKey    = "00000000000000aa"
	recentKey = "00000000000000bb"
	lockedKey = "00000000000000cc"
	failedKey = "00000000000000dd"
)

func newFixture(t *testing.T) *cacheFixture {
	x := &cacheFixture{cache: t.TempDir(), outside: t.TempDir(), now: time.Now()}
	old := x.now.Add(-TrimLimit - 2*probecache.UseInterval)
	for _, k := range []string{oldKey, recentKey, lockedKey} {
		x.dir(t, k, old)
		x.file(t, k+".lock", old)
	}
	x.touch(t, recentKey, x.now.Add(-time.Hour))
	x.dir(t, "failed-"+failedKey, old)
	x.dir(t, "build-"+recentKey+"-123456", x.now) // killed midway (no one holds the lock)
	x.dir(t, "discard-42", x.now.Add(-2*leftoverAge))
	x.dir(t, "discard-43", x.now) // a removal in progress
	x.file(t, probecache.New("layersrc").Name(), old)
	x.file(t, "topology-"+probecache.New("hwloc").Name()+".xml", old)
	x.file(t, "vader-0123456789abcdef01234567", old)
	x.file(t, probecache.New("mpitools").Name(), x.now)
	x.file(t, probecache.New("mpitools").Name()+".tmp-99", old)
	x.file(t, "topology-77.tmp", old)
	// not the cache's, or not of the type it writes, or links: all old
	x.dir(t, "lammps-omp", old)
	x.dir(t, "build-175160181", old)
	x.dir(t, "openmpi-5.0.9-f6cbe23e8f29", old)
	x.file(t, "topology-vm.xml", old)
	x.file(t, "00000000000000ee", old) // a file named like a build
	x.dir(t, "vader-0123456789abcdef0123456a", old)
	os.WriteFile(filepath.Join(x.outside, "target"), nil, 0o600)
	os.Mkdir(filepath.Join(x.outside, "dir"), 0o700)
	for _, l := range []struct{ name, to string }{{"00000000000000ff", "dir"},
		{"discard-44", "dir"}, {probecache.New("outside").Name(), "target"}, {"00000000000000ff.lock", "target"}} {
		if err := os.Symlink(filepath.Join(x.outside, l.to), filepath.Join(x.cache, l.name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{filepath.Join(x.outside, "dir"), filepath.Join(x.outside, "target")} {
		os.Chtimes(p, old, old)
	}
	return x
}

// dir makes a directory with a file in it, last modified at mtime.
func (x *cacheFixture) dir(t *testing.T, name string, mtime time.Time) {
	p := filepath.Join(x.cache, name)
	if err := os.MkdirAll(p, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(p, "libmpivet.so"), []byte("x"), 0o600)
	x.touch(t, name, mtime)
}

func (x *cacheFixture) file(t *testing.T, name string, mtime time.Time) {
	if err := os.WriteFile(filepath.Join(x.cache, name), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	x.touch(t, name, mtime)
}

func (x *cacheFixture) touch(t *testing.T, name string, mtime time.Time) {
	if err := os.Chtimes(filepath.Join(x.cache, name), mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// names lists the cache's entries.
func (x *cacheFixture) names(t *testing.T) map[string]bool {
	ents, err := os.ReadDir(x.cache)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]bool{}
	for _, e := range ents {
		m[e.Name()] = true
	}
	return m
}

// hold takes a flock on a file of the cache as another process would
// (its own open file), until the test ends.
func hold(t *testing.T, p string, how int) {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
}

// A trim removes the builds, failed builds and answers unused for
// TrimLimit, what killed builds, removals and writes left, and the lock
// files of what it removed; it keeps recent ones, a build another process
// holds the lock of, a removal in progress, and everything that is not
// the cache's or not of the type the cache writes, links included, and
// what links lead to.
func TestTrimRemovesOnlyOldUnusedEntries(t *testing.T) {
	x := newFixture(t)
	hold(t, filepath.Join(x.cache, lockedKey+".lock"), syscall.LOCK_SH)
	before := x.names(t)
	u, ran, err := Trim(context.Background(), x.cache, x.now)
	if err != nil || !ran {
		t.Fatalf("Trim: ran %v, %v", ran, err)
	}
	gone := []string{oldKey, oldKey + ".lock", "failed-" + failedKey, failedKey + ".lock", "build-" + recentKey + "-123456",
		"discard-42", probecache.New("layersrc").Name(), "topology-" + probecache.New("hwloc").Name() + ".xml",
		"vader-0123456789abcdef01234567", probecache.New("mpitools").Name() + ".tmp-99", "topology-77.tmp"}
	after := x.names(t)
	for _, n := range gone {
		if after[n] {
			t.Errorf("%s is still there", n)
		}
		delete(before, n)
	}
	for n := range before {
		if !after[n] && n != failedKey+".lock" {
			t.Errorf("%s was removed", n)
		}
	}
	for n := range after {
		if strings.HasPrefix(n, "discard-") && !before[n] {
			t.Errorf("a removal left %s", n)
		}
	}
	for _, p := range []string{"dir", "target"} {
		if _, err := os.Stat(filepath.Join(x.outside, p)); err != nil {
			t.Errorf("outside the cache: %v", err)
		}
	}
	if u.Builds.N != 2 || u.Answers.N != 3 || u.Leftovers.N != 4 || u.InUse != 1 {
		t.Errorf("removed %+v, want 2 builds, 3 answers, 4 leftovers, 1 build in use", u)
	}
}

func keys(m map[string]bool) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	return s
}

// A trim is done at most once a TrimInterval: a second one within it does
// not even scan the cache; one after it does. A trim stopped midway sets
// the marker back, so that the next verification trims.
func TestTrimOncePerInterval(t *testing.T) {
	x := newFixture(t)
	if _, ran, _ := Trim(context.Background(), x.cache, x.now); !ran {
		t.Fatal("the first trim did not run")
	}
	x.dir(t, oldKey, x.now.Add(-30*24*time.Hour))
	for _, later := range []time.Duration{time.Minute, TrimInterval - time.Minute} {
		if _, ran, _ := Trim(context.Background(), x.cache, x.now.Add(later)); ran || !x.names(t)[oldKey] {
			t.Fatalf("a trim %v after the last one ran", later)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ran, err := Trim(ctx, x.cache, x.now.Add(TrimInterval)); !ran || err == nil || !x.names(t)[oldKey] {
		t.Fatalf("a stopped trim: ran %v, %v; want it stopped before removing", ran, err)
	}
	if u, ran, err := Trim(context.Background(), x.cache, x.now.Add(TrimInterval+time.Minute)); !ran || err != nil || x.names(t)[oldKey] {
		t.Fatalf("the trim after a stopped one: ran %v, %v, removed %+v", ran, err, u)
	}
}

// A trim stopped while it removed a build (mpivet killed) leaves the
// build renamed to discard-*: the build's own name is gone at once, so no
// verification uses half of it, and a later trim removes the rest.
func TestTrimInterruptedRemoval(t *testing.T) {
	x := newFixture(t)
	// What discard leaves when killed after its rename.
	trash := filepath.Join(x.cache, "discard-7")
	os.Mkdir(trash, 0o700)
	if err := os.Rename(filepath.Join(x.cache, oldKey), filepath.Join(trash, "old")); err != nil {
		t.Fatal(err)
	}
	x.touch(t, "discard-7", x.now.Add(-2*leftoverAge))
	if _, err := verify(filepath.Join(x.cache, oldKey)); !os.IsNotExist(err) {
		t.Fatalf("the build's name after the rename: %v, want none", err)
	}
	if _, ran, _ := Trim(context.Background(), x.cache, x.now); !ran || x.names(t)["discard-7"] {
		t.Fatal("the interrupted removal is still there after a trim")
	}
}

// mpivet cache clean removes every build no process holds, old or new,
// and answers unused for a day, and keeps a build in use.
func TestClean(t *testing.T) {
	x := newFixture(t)
	hold(t, filepath.Join(x.cache, lockedKey+".lock"), syscall.LOCK_SH)
	x.touch(t, lockedKey, x.now)
	u, err := Clean(context.Background(), x.cache)
	if err != nil {
		t.Fatal(err)
	}
	after := x.names(t)
	if after[oldKey] || after[recentKey] || !after[lockedKey] || !after[probecache.New("mpitools").Name()] || !after["lammps-omp"] {
		t.Errorf("after clean: %v", keys(after))
	}
	if u.Builds.N != 3 || u.InUse != 1 {
		t.Errorf("removed %+v, want 3 builds, 1 in use", u)
	}
	if _, ran, _ := Trim(context.Background(), x.cache, x.now.Add(time.Minute)); ran {
		t.Error("a trim ran right after a clean")
	}
}

// Whoever locks a build's lock file checks that it is still the one at
// its path: one a trim removed while they waited is let go, and the new
// one locked.
func TestLockFileRemovedWhileWaiting(t *testing.T) {
	p := filepath.Join(t.TempDir(), oldKey+".lock")
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(p) // what the trim does, holding the lock
	g, err := lockFile(p, f, syscall.LOCK_EX, func() {})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if !sameFile(g, p) {
		t.Error("the lock is on a removed file")
	}
}

// Every name the cache's writers make is one the trim knows, of its kind.
func TestCacheNames(t *testing.T) {
	for name, want := range map[string]class{
		probecache.New("layersrc").Name():                     answer,
		"topology-" + probecache.New("hwloc").Name() + ".xml": answer,
		"vader-0123456789abcdef01234567":                      answer,
		"0123456789abcdef":                                    build,
	} {
		typ := fs.FileMode(0)
		if want == build {
			typ = fs.ModeDir
		}
		if c, _ := classify(name, typ); c != want {
			t.Errorf("%s: class %d, want %d", name, c, want)
		}
	}
	d, _ := os.MkdirTemp(t.TempDir(), "build-0123456789abcdef-")
	if c, k := classify(filepath.Base(d), fs.ModeDir); c != building || k != "0123456789abcdef" {
		t.Errorf("%s: class %d key %q", d, c, k)
	}
	d, _ = os.MkdirTemp(t.TempDir(), "discard-")
	if c, _ := classify(filepath.Base(d), fs.ModeDir); c != discarded {
		t.Errorf("%s: class %d", d, c)
	}
	f, _ := os.CreateTemp(t.TempDir(), probecache.New("x").Name()+".tmp-*")
	if c, _ := classify(filepath.Base(f.Name()), fs.FileMode(0)); c != temporary {
		t.Errorf("%s: class %d", f.Name(), c)
	}
	f.Close()
}

// BenchmarkTrim measures a trim that removes n builds unused for long,
// each as the cache holds it (a library of the size given, the
// supervisor, manifest.json, checked.json), in the CPU time of the
// process (getrusage: user+sys ms per trim) and wall time:
//
//	cd layer && go test -run '^$' -bench Trim -benchtime 1x .
func BenchmarkTrim(b *testing.B) {
	for _, c := range []struct {
		n   int
		lib int
	}{{500, 100 << 10}, {50, 8 << 20}} {
		b.Run(fmt.Sprintf("%d-builds-of-%dkB", c.n, c.lib>>10), func(b *testing.B) {
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				cache := b.TempDir()
				lib := make([]byte, c.lib)
				old := time.Now().Add(-30 * 24 * time.Hour)
				for k := 0; k < c.n; k++ {
					d := filepath.Join(cache, fmt.Sprintf("%016x", k))
					os.Mkdir(d, 0o700)
					os.WriteFile(filepath.Join(d, "libmpivet.so"), lib, 0o755)
					os.WriteFile(filepath.Join(d, "mpivet-supervise"), lib[:32<<10], 0o755)
					os.WriteFile(filepath.Join(d, "manifest.json"), lib[:500], 0o600)
					os.WriteFile(filepath.Join(d, "checked.json"), lib[:600], 0o600)
					os.WriteFile(d+".lock", nil, 0o600)
					os.Chtimes(d, old, old)
				}
				syscall.Sync()
				before := rusage()
				b.StartTimer()
				u, _, err := Trim(context.Background(), cache, time.Now())
				b.StopTimer()
				cpu += rusage() - before
				if err != nil || u.Builds.N != c.n {
					b.Fatalf("%v, %+v", err, u)
				}
			}
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/trim")
		})
	}
}

// BenchmarkTrimNotDue is what every verification pays when the trim is
// not due: reading the marker.
func BenchmarkTrimNotDue(b *testing.B) {
	cache := b.TempDir()
	Trim(context.Background(), cache, time.Now())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if trimDue(cache, time.Now()) {
			b.Fatal("due")
		}
	}
}

// rusage is the CPU time (user+sys) of this process so far.
func rusage() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// MPIVET_CACHE_TRIM sets the age limit (days or a duration); a value
// that is not one is refused with a message, and the default used.
func TestTrimAge(t *testing.T) {
	for v, want := range map[string]time.Duration{"": TrimLimit, "3d": 72 * time.Hour, "36h": 36 * time.Hour} {
		t.Setenv("MPIVET_CACHE_TRIM", v)
		if d, err := TrimAge(); d != want || err != nil {
			t.Errorf("%q: %v %v, want %v", v, d, err, want)
		}
	}
	for _, v := range []string{"soon", "-1d", "0h", "d"} {
		t.Setenv("MPIVET_CACHE_TRIM", v)
		if d, err := TrimAge(); d != TrimLimit || err == nil || !strings.Contains(err.Error(), "MPIVET_CACHE_TRIM="+v+" is not an age") {
			t.Errorf("%q: %v %v, want the default and an error", v, d, err)
		}
	}
	t.Setenv("MPIVET_CACHE_TRIM", "3d")
	x := newFixture(t)
	x.touch(t, recentKey, x.now.Add(-4*24*time.Hour))
	x.touch(t, lockedKey, x.now.Add(-2*24*time.Hour))
	Trim(context.Background(), x.cache, x.now)
	if n := x.names(t); n[recentKey] || !n[lockedKey] {
		t.Errorf("with 3d: a build unused for 4 days kept %v, one unused for 2 days removed %v", n[recentKey], !n[lockedKey])
	}
}
