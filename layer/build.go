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
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

//go:embed src
var sources embed.FS

// Built is a built layer.
type Built struct {
	Library    string // libmpivet.so, to preload into each rank
	Supervisor string // mpivet-supervise
}

// CacheDir is where built layers are kept.
func CacheDir() string {
	if d := os.Getenv("MPIVET_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "mpivet")
	}
	return filepath.Join(os.TempDir(), "mpivet-cache")
}

// Build builds (or finds in the cache) the layer for the MPI whose compiler
// wrapper is cc. identity describes that MPI (library path, version) so that
// a changed MPI gets a new build.
func Build(cc, identity string) (*Built, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n", cc, identity)
	show, _ := exec.Command(cc, "-show").CombinedOutput()
	if len(show) == 0 || strings.Contains(string(show), "nrecognized") {
		show, _ = exec.Command(cc, "--showme").CombinedOutput()
	}
	h.Write(show)
	names, err := sourceFiles()
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		b, _ := sources.ReadFile("src/" + n)
		fmt.Fprintf(h, "%s %d\n", n, len(b))
		h.Write(b)
	}
	key := hex.EncodeToString(h.Sum(nil))[:16]
	dir := filepath.Join(CacheDir(), key)
	b := &Built{Library: filepath.Join(dir, "libmpivet.so"), Supervisor: filepath.Join(dir, "mpivet-supervise")}
	if fileExists(b.Library) && fileExists(b.Supervisor) {
		return b, nil
	}
	if err := os.MkdirAll(CacheDir(), 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the layer cache: %v", err)
	}
	tmp, err := os.MkdirTemp(CacheDir(), "build-")
	if err != nil {
		return nil, fmt.Errorf("cannot create the layer cache: %v", err)
	}
	defer os.RemoveAll(tmp)
	for _, n := range names {
		data, _ := sources.ReadFile("src/" + n)
		p := filepath.Join(tmp, n)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
	}
	run := func(name string, args ...string) error {
		cmd := exec.Command(name, args...)
		cmd.Dir = tmp
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("building mpivet's layer failed: %s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return nil
	}
	args := []string{"-shared", "-fPIC", "-O2", "-g", "-o", "libmpivet.so"}
	for _, n := range names {
		if strings.HasSuffix(n, ".c") && !strings.HasPrefix(n, "supervisor/") {
			args = append(args, n)
		}
	}
	if err := run(cc, append(args, "-ldl")...); err != nil {
		return nil, err
	}
	// The supervisor needs no MPI; any C compiler will do, the wrapper included.
	plain := "cc"
	if _, err := exec.LookPath(plain); err != nil {
		plain = cc
	}
	if err := run(plain, append([]string{"-O2", "-o", "mpivet-supervise"}, supervisorSources...)...); err != nil {
		return nil, err
	}
	// Publish atomically: concurrent mpivet runs may build the same key.
	if err := os.Rename(tmp, dir); err != nil && !(fileExists(b.Library) && fileExists(b.Supervisor)) {
		return nil, fmt.Errorf("cannot store the layer in %s: %v", dir, err)
	}
	return b, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
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
