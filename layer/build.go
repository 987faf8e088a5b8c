// Package layer holds mpivet's interposition layer, the C code that runs
// inside every rank, and builds it.
//
// The layer is compiled on the user's machine with the compiler wrapper of
// the MPI the program uses (handle types and ABI differ between MPIs and
// versions), and cached by a hash of its sources and of that MPI, so a user
// needs nothing but mpivet and their MPI.
//
//	mpivet.h             record format and the inline recording primitives
//	recorder.c           per-rank log, process metadata, crash handler
//	buffers.c            the nonblocking-buffer checker (page protection)
//	clocks.c             the clock protocol: piggybacks, wildcard events, guided replay;
//	                     messages never received, found at MPI_Finalize
//	signature.c          datatype signatures, carried by piggybacks, for the type-mismatch check
//	divergence.c         a guided replay compares its calls with its parent run's, stops where they differ
//	generated/wrappers.c C and Fortran wrappers, generated from api/mpi.api
//	supervise.c          the per-rank supervisor that records how a rank ended
package layer

//go:generate go run ../internal/gen ..

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	names := []string{"mpivet.h", "recorder.c", "buffers.c", "clocks.c", "signature.c", "divergence.c", "supervise.c", "generated/wrappers.c", "generated/ids.h"}
	for _, n := range names {
		b, _ := sources.ReadFile("src/" + n)
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
	if err := run(cc, "-shared", "-fPIC", "-O2", "-g", "-o", "libmpivet.so", "recorder.c", "buffers.c", "clocks.c", "signature.c", "divergence.c", "generated/wrappers.c", "-ldl"); err != nil {
		return nil, err
	}
	// The supervisor needs no MPI; any C compiler will do, the wrapper included.
	plain := "cc"
	if _, err := exec.LookPath(plain); err != nil {
		plain = cc
	}
	if err := run(plain, "-O2", "-o", "mpivet-supervise", "supervise.c"); err != nil {
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
