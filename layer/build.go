// Package layer holds mpivet's interposition layer, the C code that runs
// inside every rank, and builds it.
//
// The layer is compiled on the user's machine with the compiler wrapper of
// the MPI the program uses (handle types and ABI differ between MPIs and
// versions), and cached by a hash of its sources and of that MPI, so a user
// needs nothing but mpivet and their MPI.
//
// The sources (src/) are in layers; each includes and calls only those
// below it, and the recorder calls the services above it back through the
// callbacks they register (struct mpivet_service, mpivet_commit_hook).
// docs/architecture.md ("The map of the code") has the map of the layers, bottom to top: it
// is kept in one place so that it cannot fall behind the tree.
package layer

//go:generate go run ../internal/gen ..

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"mpivet/internal/probecache"
)

//go:embed src
var sources embed.FS

// Built is a built layer.
type Built struct {
	Library    string // libmpivet.so, to preload into each rank
	Supervisor string // mpivet-supervise
	BuildID    string // the build that made them (its manifest's)
}

// layout is the form of a cached build (manifest.json beside the
// artifacts); it is part of the key, so that a change of form gets new
// directories instead of misreading old ones.
const layout = "manifest-1"

// Build builds (or finds in the cache) the layer for the MPI whose compiler
// wrapper is cc. identity describes that MPI (library path, version, and
// the wrapper's whole command line, mpi.Install.Show) so that a changed MPI
// or changed flags get a new build. notify, if not nil, is told what takes
// time: a build, a wait for another mpivet's build, a damaged cached build.
//
// A cached build is used only once each of its files matches the sha256
// its manifest records. Builds of one key are serialized by a lock file
// in the cache (flock, lock.go): the first mpivet builds, the others wait
// and use its result; a process that uses a build keeps it locked
// (shared) until it exits, so that the trim (trim.go) leaves it. A build
// is made in a temporary directory and renamed into place whole, so no
// one sees half of one, and one killed midway leaves only that
// directory, which the next build removes. A build found is marked used
// (probecache.MarkUsed).
func Build(cc, identity string, notify func(string)) (*Built, error) {
	return BuildContext(context.Background(), cc, identity, notify)
}

// BuildContext is Build, the compiler stopped when ctx is done (an
// interrupt): the build is then left unfinished, as a killed one is, and
// the error says the build was stopped.
func BuildContext(ctx context.Context, cc, identity string, notify func(string)) (*Built, error) {
	if notify == nil {
		notify = func(string) {}
	}
	cache, err := CacheDir()
	if err != nil {
		return nil, err
	}
	names, err := sourceFiles()
	if err != nil {
		return nil, err
	}
	key := buildKey(cache, cc, identity, names)
	dir := filepath.Join(cache, key)
	l, err := useKey(cache, key, notify)
	if err != nil {
		if b, verr := verify(dir); verr == nil {
			return b, nil // a cache that cannot be written to (no lock file can be made): nothing trims it
		}
		return nil, err
	}
	defer l.mu.Unlock()
	if b, err := verify(dir); err == nil {
		probecache.MarkUsed(dir)
		return b, nil
	}
	if err := l.exclusive(notify); err != nil {
		return nil, err
	}
	defer l.shared()
	b, verr := verify(dir) // built by another mpivet while this one waited?
	if verr == nil {
		return b, nil
	}
	if !errors.Is(verr, fs.ErrNotExist) {
		notify(fmt.Sprintf("the cached layer in %s is damaged (%v): building it again", dir, verr))
		if err := discard(cache, dir); err != nil {
			return nil, err
		}
	}
	removeLeftovers(cache, key)
	notify(fmt.Sprintf("building the layer for this MPI with %s into %s (once per MPI and mpivet version)", cc, dir))
	tmp, err := os.MkdirTemp(cache, "build-"+key+"-")
	if err != nil {
		return nil, fmt.Errorf("cannot create the layer cache: %v", err)
	}
	defer os.RemoveAll(tmp)
	out, err := compile(ctx, tmp, cc, names)
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("the build of mpivet's layer was stopped (%v): nothing was run", context.Cause(ctx))
	}
	if err != nil {
		return nil, keepFailed(cache, key, tmp, err)
	}
	if err := writeManifest(out, cc, identity); err != nil {
		return nil, err
	}
	if err := os.Rename(out, dir); err != nil {
		return nil, fmt.Errorf("cannot store the layer in %s: %v", dir, err)
	}
	return verify(dir)
}

// buildKey names a build: a hash of the compiler, the MPI (identity,
// which holds the compiler's flags: the wrapper's -show), every source,
// and the layout.
func buildKey(cache, cc, identity string, names []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", layout, cc, identity)
	h.Write([]byte(sourcesHash(cache, names)))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// sourcesHash is the hash of the layer's sources, embedded in mpivet: kept
// in the cache under the identity of mpivet's executable, which they
// cannot change without (hashing them costs 5 ms a verification).
func sourcesHash(cache string, names []string) string {
	var k *probecache.Key
	if exe, err := os.Executable(); err == nil {
		k = probecache.New("layersrc")
		k.File(exe)
		k.Text(names...)
		var sum string
		if probecache.Get(cache, k, &sum) && sum != "" {
			return sum
		}
	}
	h := sha256.New()
	for _, n := range names {
		b, _ := sources.ReadFile("src/" + n)
		fmt.Fprintf(h, "%s %d\n", n, len(b))
		h.Write(b)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if k != nil {
		probecache.Put(cache, k, sum, nil)
	}
	return sum
}

// compile writes the sources into tmp/src and builds the artifacts into
// tmp/out, which it returns.
func compile(ctx context.Context, tmp, cc string, names []string) (string, error) {
	src, out := filepath.Join(tmp, "src"), filepath.Join(tmp, "out")
	if err := os.Mkdir(out, 0o700); err != nil {
		return "", err
	}
	for _, n := range names {
		data, _ := sources.ReadFile("src/" + n)
		p := filepath.Join(src, n)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return "", err
		}
	}
	run := func(name string, args ...string) error {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = src
		// stopped with the compilers the wrapper started (a group of its own)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		cmd.WaitDelay = time.Second
		res, err := cmd.CombinedOutput()
		if err != nil {
			line := name + " " + strings.Join(args, " ")
			os.WriteFile(filepath.Join(tmp, buildLog), []byte("cd "+src+"\n"+line+"\n"+string(res)), 0o600)
			return &buildError{cmd: line, err: err, output: res}
		}
		return nil
	}
	args := []string{"-shared", "-fPIC", "-O2", "-g", "-o", filepath.Join(out, "libmpivet.so")}
	for _, n := range names {
		if strings.HasSuffix(n, ".c") && !strings.HasPrefix(n, "supervisor/") {
			args = append(args, n)
		}
	}
	if err := run(cc, append(args, "-ldl")...); err != nil {
		return "", err
	}
	// The supervisor needs no MPI; any C compiler will do, the wrapper included.
	plain := "cc"
	if _, err := exec.LookPath(plain); err != nil {
		plain = cc
	}
	if err := run(plain, append([]string{"-O2", "-o", filepath.Join(out, "mpivet-supervise")}, supervisorSources...)...); err != nil {
		return "", err
	}
	return out, nil
}

// buildLog is the file in a failed build's directory that holds the
// command and the compiler's output.
const buildLog = "build.log"

// buildError is a failed compilation; Dir is where its sources and output
// were kept ("" if they could not be).
type buildError struct {
	cmd    string
	err    error
	output []byte
	dir    string
}

func (e *buildError) Error() string {
	kept := ""
	if e.dir != "" {
		kept = fmt.Sprintf(" (the compiler's output is kept in %s, the sources it compiled in %s)",
			filepath.Join(e.dir, buildLog), filepath.Join(e.dir, "src"))
	}
	return fmt.Sprintf("building mpivet's layer failed%s: %s: %v\n%s", kept, e.cmd, e.err, e.output)
}

// keepFailed keeps the directory of a failed build as failed-KEY in the
// cache (replacing an older one of key), so that the compiler's output
// and the sources stay for whoever looks into it; the next build of key
// removes it.
func keepFailed(cache, key, tmp string, err error) error {
	be, ok := err.(*buildError)
	if !ok {
		return err
	}
	dir := filepath.Join(cache, "failed-"+key)
	os.RemoveAll(dir)
	if os.Rename(tmp, dir) == nil {
		be.dir = dir
	}
	return be
}

// discard removes a damaged build: renamed away first (atomically), so
// that no one finds half of it.
func discard(cache, dir string) error {
	trash, err := os.MkdirTemp(cache, "discard-")
	if err != nil {
		return fmt.Errorf("cannot remove the damaged layer %s: %v", dir, err)
	}
	defer os.RemoveAll(trash)
	if err := os.Rename(dir, filepath.Join(trash, "old")); err != nil {
		return fmt.Errorf("cannot remove the damaged layer %s: %v", dir, err)
	}
	return nil
}

// removeLeftovers removes what builds of key that were killed midway left
// (their temporary directories), and the kept directory of one that
// failed. The caller holds key's lock, so no build
// of key is in progress.
func removeLeftovers(cache, key string) {
	old, _ := filepath.Glob(filepath.Join(cache, "build-"+key+"-*"))
	old = append(old, filepath.Join(cache, "failed-"+key))
	for _, d := range old {
		os.RemoveAll(d)
	}
}

// The sources in supervisor/ are not part of the library; the supervisor
// program is built from them and the layer.conf reader.
const supervisor = "supervisor/supervise.c"

var supervisorSources = []string{supervisor, "supervisor/logsum.c", "record/conf.c"}

// sourceFiles lists the embedded sources, relative to src/, sorted: every
// file is hashed and copied, and every .c file but those in supervisor/
// is compiled into the library.
func sourceFiles() ([]string, error) {
	var names []string
	err := fs.WalkDir(sources, "src", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			names = append(names, strings.TrimPrefix(p, "src/"))
		}
		return nil
	})
	sort.Strings(names)
	return names, err
}
