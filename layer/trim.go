package layer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"mpivet/internal/probecache"
)

// The cache is trimmed as Go's build cache is. Each use of a build or of
// a probe's answer marks it (probecache.MarkUsed: its modification time,
// set at most once per probecache.UseInterval). At most once per
// TrimInterval (the time of the last trim is in trimMarker) a
// verification removes, in the background of its run, the builds and
// answers unused for TrimLimit, and what interrupted builds and removals
// left. Only names the cache's writers make are touched (cacheNames);
// links and anything else are left alone. A build is removed only with its
// lock taken without waiting (lock.go): one that a process uses or builds
// is kept. It is renamed away first (discard), then removed, so that a
// trim stopped midway leaves no half build under a build's name, only a
// discard-* directory, which a later trim removes.

const (
	// TrimInterval is how often the cache is trimmed, at most.
	TrimInterval = 24 * time.Hour
	// TrimLimit is how long a build or an answer stays unused before a
	// trim removes it. Go's build cache keeps an entry 5 days; a build of
	// the layer costs a minute or two of compiling and a few MB, and
	// mpivet is run less steadily than a compiler, so one that is run
	// weekly keeps its build: 10 days.
	TrimLimit = 10 * 24 * time.Hour
	// leftoverAge is how old a leftover (a temporary file or a removal's
	// directory, of a process that was killed) must be before it is
	// removed: such a name is in use for milliseconds to seconds.
	leftoverAge = time.Hour
	// probeKeep is how recently used an answer is kept by Clean: a run in
	// progress reads the topology file in every rank it starts.
	probeKeep = 24 * time.Hour
)

// TrimAge is the age limit of the trim: $MPIVET_CACHE_TRIM if set (a
// duration: 36h, or days: 3d), else TrimLimit; err says why a value set
// is not used.
func TrimAge() (time.Duration, error) {
	v := os.Getenv("MPIVET_CACHE_TRIM")
	if v == "" {
		return TrimLimit, nil
	}
	d, err := time.ParseDuration(v)
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, nerr := strconv.ParseUint(days, 10, 16)
		d, err = time.Duration(n)*24*time.Hour, nerr
	}
	if err != nil || d <= 0 {
		return TrimLimit, fmt.Errorf("MPIVET_CACHE_TRIM=%s is not an age such as 3d or 36h: the layer cache is trimmed of what was unused for %d days", v, int(TrimLimit.Hours()/24))
	}
	return d, nil
}

// trimMarker is the file that holds the time of the last trim (Unix
// seconds); it is also locked by the trim in progress.
const trimMarker = "trim.txt"

// An entry's class in the cache, by its name (cacheNames).
type class int

const (
	foreign   class = iota // not the cache's: never touched
	build                  // KEY: a build (a directory)
	lockName               // KEY.lock
	building               // build-KEY-*: a build in progress, or what a killed one left
	failed                 // failed-KEY: a failed build, kept for its log
	discarded              // discard-*: a removal in progress, or what a killed one left
	answer                 // a probe's answer (internal/probecache, launch's topology, mpi's vader settings)
	temporary              // a probe's answer being written, or what a killed writer left
	marker                 // trimMarker
)

// cacheNames are the names the cache's writers make: this package
// (build.go, lock.go), internal/probecache (probe-KIND-HASH), launch's
// topologyFile (topology-probe-hwloc-HASH.xml) and mpi's SharedMemory
// (vader-HASH), and their temporary names. dir says whether the entry is
// a directory (else a regular file). The submatch is the build's key.
var cacheNames = []struct {
	re    *regexp.Regexp
	class class
	dir   bool
}{
	{regexp.MustCompile(`^([0-9a-f]{16})$`), build, true},
	{regexp.MustCompile(`^([0-9a-f]{16})\.lock$`), lockName, false},
	{regexp.MustCompile(`^build-([0-9a-f]{16})-[0-9A-Za-z]+$`), building, true},
	{regexp.MustCompile(`^failed-([0-9a-f]{16})$`), failed, true},
	{regexp.MustCompile(`^discard-[0-9]+$`), discarded, true},
	{regexp.MustCompile(`^probe-[a-z0-9]+-[0-9a-f]{20}$`), answer, false},
	{regexp.MustCompile(`^topology-probe-[a-z0-9]+-[0-9a-f]{20}\.xml$`), answer, false},
	{regexp.MustCompile(`^vader-[0-9a-f]{24}$`), answer, false},
	{regexp.MustCompile(`^probe-[a-z0-9]+-[0-9a-f]{20}\.tmp-[0-9]+$`), temporary, false},
	{regexp.MustCompile(`^topology-[0-9]+\.tmp$`), temporary, false},
	{regexp.MustCompile(`^vader-[0-9a-f]{24}\.[0-9]+$`), temporary, false},
	{regexp.MustCompile(`^trim\.txt$`), marker, false},
}

// classify returns the class of the cache entry name of type typ (a
// fs.DirEntry's: not followed), and its build's key for those of a build.
func classify(name string, typ fs.FileMode) (class, string) {
	for _, n := range cacheNames {
		m := n.re.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		if n.dir && typ != fs.ModeDir || !n.dir && typ != 0 { // a link, or not the type written
			return foreign, ""
		}
		key := ""
		if len(m) > 1 {
			key = m[1]
		}
		return n.class, key
	}
	return foreign, ""
}

// Tally counts entries and their size on disk.
type Tally struct {
	N     int
	Bytes int64
}

func (t *Tally) add(n int, bytes int64) { t.N += n; t.Bytes += bytes }

// Usage is what the cache holds, or what a trim removed, by kind.
type Usage struct {
	Builds    Tally // builds of the layer, with their failed builds
	Answers   Tally // the probes' answers
	Leftovers Tally // what interrupted builds, removals and writes left
	InUse     int   // builds kept because a process uses or builds them
	Other     []string
}

// cutoffs are the times before which a trim removes what was last used.
type cutoffs struct {
	builds, answers, leftovers time.Time
}

// trimDir removes from cache what was last used before the cutoffs, and
// what was left by builds killed midway; it stops between two entries
// when ctx is done.
func trimDir(ctx context.Context, cache string, cut cutoffs) (Usage, error) {
	var u Usage
	ents, err := os.ReadDir(cache)
	if err != nil {
		return u, err
	}
	keys := map[string][]string{} // build key -> what killed builds of it left
	for _, e := range ents {
		if ctx.Err() != nil {
			return u, ctx.Err()
		}
		c, key := classify(e.Name(), e.Type())
		p := filepath.Join(cache, e.Name())
		switch c {
		case build, lockName, failed:
			if _, ok := keys[key]; !ok {
				keys[key] = nil
			}
		case building:
			keys[key] = append(keys[key], p)
		case discarded:
			if olderThan(p, cut.leftovers) {
				u.Leftovers.add(1, removeAll(p))
			}
		case answer, temporary:
			t := &u.Answers
			before := cut.answers
			if c == temporary {
				t, before = &u.Leftovers, cut.leftovers
			}
			if olderThan(p, before) {
				size := diskSize(p)
				if os.Remove(p) == nil {
					t.add(1, size)
				}
			}
		}
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, key := range sorted {
		if ctx.Err() != nil {
			return u, ctx.Err()
		}
		trimKey(cache, key, keys[key], cut, &u)
	}
	return u, nil
}

// trimKey removes key's build if it was last used before cut.builds, with
// its failed build if that is as old, what killed builds of it left, and
// its lock file once nothing of it is left: all with its lock taken
// without waiting, or nothing if a process uses or builds it. tmps are
// the build-KEY-* directories.
func trimKey(cache, key string, tmps []string, cut cutoffs, u *Usage) {
	dir := filepath.Join(cache, key)
	fail := filepath.Join(cache, "failed-"+key)
	if isDir(dir) && !olderThan(dir, cut.builds) && len(tmps) == 0 && !(isDir(fail) && olderThan(fail, cut.builds)) {
		return // in recent use: not even locked
	}
	p := filepath.Join(cache, key+".lock")
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil || !sameFile(f, p) {
		u.InUse++
		return
	}
	for _, d := range tmps {
		if isDir(d) {
			u.Leftovers.add(1, removeAll(d))
		}
	}
	for _, d := range []string{dir, fail} {
		if isDir(d) && olderThan(d, cut.builds) {
			size := diskSize(d)
			if discard(cache, d) == nil {
				u.Builds.add(1, size)
			}
		}
	}
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) && !isDir(fail) {
		os.Remove(p) // locked: whoever waits for it finds it gone, and locks the new one (lockFile)
	}
}

// olderThan says whether p (not followed) was last modified before t.
func olderThan(p string, t time.Time) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.ModTime().Before(t)
}

func isDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}

// removeAll removes the directory p and returns its size on disk.
func removeAll(p string) int64 {
	size := diskSize(p)
	if os.RemoveAll(p) != nil {
		return 0
	}
	return size
}

// diskSize is the space p takes (its blocks, as du counts them), links
// not followed.
func diskSize(p string) int64 {
	var n int64
	filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				n += st.Blocks * 512
			}
		}
		return nil
	})
	return n
}

// lastTrim reads the time of the last trim from the marker file f.
func lastTrim(f *os.File) (time.Time, bool) {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	sec, err := strconv.ParseInt(strings.TrimSpace(string(buf[:n])), 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(sec, 0), true
}

// due says whether a trim is due at now after one at last: a day later,
// or a last one in the future (a clock set back, a damaged marker).
func due(last time.Time, ok bool, now time.Time) bool {
	d := now.Sub(last)
	return !ok || d >= TrimInterval || d <= -probecache.UseInterval
}

// writeMarker replaces the content of the marker file f.
func writeMarker(f *os.File, content []byte) {
	if f.Truncate(0) == nil {
		f.WriteAt(content, 0)
	}
}

// openMarker opens (creates) the cache's trim marker and locks it,
// without waiting unless wait; ok is false if another trim holds it.
func openMarker(cache string, wait bool) (f *os.File, ok bool, err error) {
	f, err = os.OpenFile(filepath.Join(cache, trimMarker), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, false, err
	}
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		if err = syscall.Flock(int(f.Fd()), how); err != syscall.EINTR {
			break
		}
	}
	if err == syscall.EWOULDBLOCK {
		f.Close()
		return nil, false, nil
	}
	if err != nil {
		f.Close()
		return nil, false, err
	}
	return f, true, nil
}

// trimDue says, cheaply (one read), whether the cache's trim is due.
func trimDue(cache string, now time.Time) bool {
	f, err := os.OpenFile(filepath.Join(cache, trimMarker), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return true
	}
	defer f.Close()
	last, ok := lastTrim(f)
	return due(last, ok, now)
}

// Trim removes from the cache the builds and answers unused for
// TrimAge, and the leftovers of killed builds and removals, if no trim
// did in the last TrimInterval (trimMarker) and none is in progress. It
// stops between two entries when ctx is done: then the marker is set back,
// so that the next verification trims again. ran says whether it trimmed.
func Trim(ctx context.Context, cache string, now time.Time) (u Usage, ran bool, err error) {
	if !trimDue(cache, now) {
		return u, false, nil
	}
	f, ok, err := openMarker(cache, false)
	if !ok {
		return u, false, err // another trim is in progress (or the marker cannot be made)
	}
	defer f.Close()
	last, ok := lastTrim(f)
	if !due(last, ok, now) { // another trim has just finished
		return u, false, nil
	}
	old := make([]byte, 32)
	n, _ := f.ReadAt(old, 0)
	writeMarker(f, []byte(strconv.FormatInt(now.Unix(), 10)+"\n"))
	// A use is marked at most UseInterval late: its entry is older by that.
	limit, _ := TrimAge()
	before := now.Add(-limit - probecache.UseInterval)
	u, err = trimDir(ctx, cache, cutoffs{builds: before, answers: before, leftovers: now.Add(-leftoverAge)})
	if err != nil {
		writeMarker(f, old[:n])
	}
	return u, true, err
}

// Clean removes from the cache every build that no process uses or
// builds, every answer unused for a day (a verification in progress may
// still read it) and the leftovers of killed builds and removals; it
// waits for a trim in progress. It is a trim: the marker says so.
func Clean(ctx context.Context, cache string) (Usage, error) {
	f, _, err := openMarker(cache, true)
	if err != nil {
		return Usage{}, err
	}
	defer f.Close()
	now := time.Now()
	u, err := trimDir(ctx, cache, cutoffs{builds: now.Add(time.Minute), answers: now.Add(-probeKeep), leftovers: now.Add(-leftoverAge)})
	if err == nil {
		writeMarker(f, []byte(strconv.FormatInt(now.Unix(), 10)+"\n"))
	}
	return u, err
}

// TrimInBackground starts Trim of the user's cache in the background of a
// verification; the function it returns waits for the trim to end,
// stopping it after finish more (or at once when ctx is done), so that no
// removal goes on after mpivet exits: a stopped trim leaves only discard-*
// directories, never a half build.
func TrimInBackground(ctx context.Context, finish time.Duration, notify func(string)) (wait func()) {
	cache, err := CacheDir()
	if err != nil || !trimDue(cache, time.Now()) {
		return func() {}
	}
	if _, err := TrimAge(); err != nil {
		notify(err.Error())
	}
	tctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Trim(tctx, cache, time.Now())
	}()
	return func() {
		select {
		case <-done:
		case <-time.After(finish):
		}
		cancel()
		<-done
	}
}

// Inspect says what the cache holds: its builds, answers and leftovers
// (InUse: the builds a process uses or builds now), the names in it that
// are not the cache's (Other, left alone by trims), and the time of the
// last trim (zero if none).
func Inspect(cache string) (u Usage, last time.Time, err error) {
	ents, err := os.ReadDir(cache)
	if err != nil {
		return u, last, err
	}
	for _, e := range ents {
		p := filepath.Join(cache, e.Name())
		switch c, key := classify(e.Name(), e.Type()); c {
		case build, failed:
			u.Builds.add(1, diskSize(p))
			if c == build && inUse(cache, key) {
				u.InUse++
			}
		case answer:
			u.Answers.add(1, diskSize(p))
		case building, discarded, temporary:
			u.Leftovers.add(1, diskSize(p))
		case foreign:
			u.Other = append(u.Other, e.Name())
		case marker:
			if f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW, 0); err == nil {
				last, _ = lastTrim(f)
				f.Close()
			}
		}
	}
	return u, last, nil
}

// inUse says whether a process holds the lock of key's build (uses or
// builds it), without taking it.
func inUse(cache, key string) bool {
	f, err := os.OpenFile(filepath.Join(cache, key+".lock"), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}
