// Package mpi finds out which MPI a program was linked against and where
// that MPI's compiler wrapper and launcher are, so that mpivet can build its
// layer against exactly that MPI and launch the program the way it expects.
package mpi

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"mpivet/internal/probecache"
	"mpivet/layer"
)

// Impl is an MPI implementation family.
type Impl string

const (
	OpenMPI Impl = "openmpi"
	MPICH   Impl = "mpich" // MPICH and its ABI-compatible derivatives
)

// Pretty returns the implementation's usual name.
func (i Impl) Pretty() string {
	if i == OpenMPI {
		return "Open MPI"
	}
	return "MPICH"
}

// Install is one MPI installation.
type Install struct {
	Impl     Impl
	Lib      string // the MPI library the program resolves to
	CC       string // its C compiler wrapper
	Launcher string // its launcher (mpirun / mpiexec)
	Version  string // one line, e.g. "Open MPI 4.1.4"
	Show     string // the wrapper's whole command line (-show, --showme): the flags the layer is built with
	// Python is set when the program is a Python interpreter that loads
	// MPI with mpi4py: the path of mpi4py's extension module.
	Python string
}

// Error is a problem with the user's program or MPI installation: mpivet
// cannot do its job, and says why.
type Error struct {
	Msg string
	// unlinked: the program is a dynamically linked executable that links
	// no MPI library; it may still load one at run time (runtime.go).
	unlinked bool
}

func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// Program checks that path is a dynamically linked MPI program and returns
// the MPI installation it uses.
func Program(path string) (*Install, error) {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, errorf("%s: no such file", path)
	}
	if err != nil {
		return nil, errorf("%s: %v", path, err)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return nil, errorf("%s: not an executable file", path)
	}
	f, err := elf.Open(path)
	if err != nil {
		return nil, errorf("%s: not an executable program (mpivet runs compiled MPI programs; to run a script, run the program it starts)", path)
	}
	defer f.Close()
	if syms, err := f.Symbols(); err == nil {
		for _, s := range syms {
			if s.Name == "PMPI_Init" && s.Section != elf.SHN_UNDEF {
				return nil, errorf("%s: MPI is linked statically into the program; mpivet needs a program linked against a shared MPI library", path)
			}
		}
	}
	if _, err := f.DynamicSymbols(); err != nil {
		return nil, errorf("%s: a statically linked program; mpivet needs a program linked against a shared MPI library", path)
	}
	libs, err := resolveLibs(path)
	if err != nil {
		return nil, err
	}
	if l, impl := mpiLib(libs); impl != "" {
		if l.path == "" {
			return nil, errorf("%s needs %s (%s), which is not installed: install %s, or set LD_LIBRARY_PATH to its library directory",
				path, l.name, impl.Pretty(), installHint(impl))
		}
		inst := &Install{Impl: impl, Lib: l.path}
		if err := inst.findTools(); err != nil {
			return nil, err
		}
		return inst, nil
	}
	return nil, &Error{Msg: fmt.Sprintf("%s is not an MPI program: it is not linked against an MPI library (Open MPI or MPICH)", path), unlinked: true}
}

// mpiLib picks the MPI library among libs, those a program or module
// loads: the first known by its name (Open MPI's libmpi.so.40, MPICH's
// libmpich.so.12), else the first that defines MPI's symbols. Libraries
// built on MPI come before it in the loader's order (Open MPI's C++ and
// Fortran bindings, MPICH's Fortran library, which defines some of
// MPICH's internal symbols): picked, they named one MPI several ways, and
// the layer, whose build is keyed by the library, was built again for
// each (launch.Prepare).
func mpiLib(libs []lib) (lib, Impl) {
	for _, l := range libs {
		if impl := implOfName(l.name); impl != "" {
			return l, impl
		}
	}
	for _, l := range libs {
		if l.path != "" {
			if impl := implOfLib(l.path); impl != "" {
				return l, impl
			}
		}
	}
	return lib{}, ""
}

func installHint(impl Impl) string {
	if impl == OpenMPI {
		return "Open MPI (Debian: apt-get install openmpi-bin libopenmpi-dev)"
	}
	return "MPICH (Debian: apt-get install mpich libmpich-dev)"
}

type lib struct{ name, path string }

var lddLine = regexp.MustCompile(`^\s*(\S+)\s*=>\s*(not found|(\S+))`)

// resolveLibs lists the shared libraries the program loads, as the dynamic
// linker resolves them (so LD_LIBRARY_PATH and RPATH count).
func resolveLibs(path string) ([]lib, error) {
	cmd := exec.Command("ldd", path)
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		return nil, errorf("%s: cannot list its shared libraries (ldd: %v)", path, err)
	}
	var libs []lib
	for _, line := range strings.Split(string(out), "\n") {
		m := lddLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		l := lib{name: m[1]}
		if m[2] != "not found" {
			l.path = m[3]
		}
		libs = append(libs, l)
	}
	return libs, nil
}

// implOfName recognises MPI libraries by soname.
func implOfName(name string) Impl {
	switch {
	case strings.HasPrefix(name, "libmpich.so"), strings.HasPrefix(name, "libmpi.so.12"):
		return MPICH
	case strings.HasPrefix(name, "libmpi.so.40"), strings.HasPrefix(name, "libmpi.so.20"):
		return OpenMPI
	case strings.HasPrefix(name, "libmpi.so"):
		return "" // decided by its symbols
	}
	return ""
}

// implOfLib recognises an MPI library by the symbols it defines, not by
// those it uses: a library built on MPI (Open MPI's C++ and Fortran
// bindings, MPICH's Fortran library, HDF5's MPI build), which the loader
// may list before the MPI library itself, is not the MPI, whose library
// keys the layer's build (launch.Prepare).
func implOfLib(path string) Impl {
	if !strings.Contains(filepath.Base(path), "mpi") {
		return ""
	}
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	syms, _ := f.DynamicSymbols()
	for _, s := range syms {
		if s.Section == elf.SHN_UNDEF {
			continue
		}
		switch {
		case s.Name == "ompi_mpi_comm_world":
			return OpenMPI
		case strings.HasPrefix(s.Name, "MPIR_"):
			return MPICH
		}
	}
	return ""
}

// findTools finds the compiler wrapper and launcher of the installation the
// library belongs to: next to its prefix first, then Debian's suffixed
// names, then the plain names on PATH. Running them to ask what they are
// takes 50-80 ms, so the answer is kept in the per-user cache under a key
// of everything it depends on (toolsKey), and the headers the wrapper's
// preprocessor read: any of them changed, the tools are asked again.
func (inst *Install) findTools() error {
	dir, derr := layer.CacheDir()
	var k *probecache.Key
	if derr == nil {
		k = inst.toolsKey()
		var a tools
		if probecache.Get(dir, k, &a) && a.CC != "" && a.Launcher != "" {
			inst.CC, inst.Launcher, inst.Version, inst.Show = a.CC, a.Launcher, a.Version, a.Show
			return nil
		}
	}
	deps, err := inst.probeTools()
	if err != nil { // not kept: the next verification asks again
		return err
	}
	if derr == nil {
		probecache.Put(dir, k, tools{inst.CC, inst.Launcher, inst.Version, inst.Show}, deps)
	}
	return nil
}

// tools is findTools' answer, as the cache keeps it.
type tools struct{ CC, Launcher, Version, Show string }

// candidates are the compiler wrappers and launchers findTools tries, in
// order (the launchers next to the wrapper chosen go first).
func (inst *Install) candidates() (libdir string, ccs, runs []string) {
	real, _ := filepath.EvalSymlinks(inst.Lib)
	libdir = filepath.Dir(real)
	suffix := "." + string(inst.Impl)
	for _, d := range []string{filepath.Join(libdir, "..", "bin"), filepath.Join(libdir, "..", "..", "bin")} {
		ccs = append(ccs, filepath.Join(d, "mpicc"))
		runs = append(runs, filepath.Join(d, "mpirun"), filepath.Join(d, "mpiexec"))
	}
	for _, n := range []string{"mpicc" + suffix, "mpicc"} {
		if p, err := exec.LookPath(n); err == nil {
			ccs = append(ccs, p)
		}
	}
	if inst.Impl == OpenMPI {
		runs = append(runs, "mpirun.openmpi", "mpiexec.openmpi", "mpirun", "mpiexec")
	} else {
		runs = append(runs, "mpiexec.mpich", "mpiexec.hydra", "mpirun.mpich", "mpiexec", "mpirun")
	}
	return libdir, ccs, runs
}

// besideWrapper are the launchers next to the compiler wrapper cc, of its
// suffix.
func besideWrapper(cc string) []string {
	dir, suffix := filepath.Dir(cc), strings.TrimPrefix(filepath.Base(cc), "mpicc")
	return []string{filepath.Join(dir, "mpirun"+suffix), filepath.Join(dir, "mpiexec"+suffix)}
}

// toolsKey is what findTools' answer depends on, known before it runs
// them: the library, every candidate wrapper and launcher (the files, and
// those PATH finds), the files the wrappers read their flags from (Open
// MPI's wrapper data and parameter files, MPICH's configuration), and the
// variables that change what the wrappers and the compiler do.
func (inst *Install) toolsKey() *probecache.Key {
	k := probecache.New("mpitools")
	k.Text(string(inst.Impl), inst.Lib)
	k.File(inst.Lib)
	_, ccs, runs := inst.candidates()
	for _, cc := range ccs {
		runs = append(runs, besideWrapper(cc)...)
		if real, err := filepath.EvalSymlinks(cc); err == nil {
			prefix := filepath.Dir(filepath.Dir(real))
			k.Glob(filepath.Join(prefix, "share", "openmpi", "*wrapper-data.txt"))
			k.Glob(filepath.Join(prefix, "etc", "*"))
		}
	}
	k.File(ccs...)
	for _, r := range runs {
		if p, err := exec.LookPath(r); err == nil {
			r = p
		}
		k.File(r)
	}
	k.Glob("/etc/openmpi/*")
	k.Glob("/etc/mpich*/*")
	if home, err := os.UserHomeDir(); err == nil {
		k.Glob(filepath.Join(home, ".openmpi", "*")) // the user's parameter files, which Open MPI's wrapper reads too
	}
	k.Env([]string{"PATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "CPATH", "C_INCLUDE_PATH", "CC", "CFLAGS", "CPPFLAGS",
		"LDFLAGS", "LIBS", "GCC_EXEC_PREFIX", "COMPILER_PATH", "LIBRARY_PATH", "HOME"},
		[]string{"OMPI_", "OPAL_", "ORTE_", "PMIX_", "MPICH", "MPICC", "MPIR_", "MPIEXEC", "HYDRA_", "I_MPI_"})
	return k
}

// probeTools runs the candidates to find the tools (findTools); it
// returns the headers the chosen wrapper's preprocessor read.
func (inst *Install) probeTools() ([]string, error) {
	libdir, ccs, runs := inst.candidates()
	var deps []string
	for _, cc := range ccs {
		if h, ok := inst.wrapperMatches(cc, libdir); ok {
			inst.CC, deps = cc, h
			break
		}
	}
	if inst.CC == "" {
		return nil, errorf("cannot build mpivet's layer for %s: its compiler wrapper mpicc was not found; install %s",
			inst.Impl.Pretty(), installHint(inst.Impl))
	}
	// Prefer the launcher next to the compiler wrapper (same installation).
	runs = append(besideWrapper(inst.CC), runs...)
	for _, r := range runs {
		if p, err := exec.LookPath(r); err == nil && inst.launcherMatches(p) {
			inst.Launcher = p
			break
		}
	}
	if inst.Launcher == "" {
		return nil, errorf("%s's launcher (mpirun or mpiexec) was not found; install %s, or pass --launcher", inst.Impl.Pretty(), installHint(inst.Impl))
	}
	inst.Version = inst.version()
	show, _ := exec.Command(inst.CC, "-show").CombinedOutput()
	if len(show) == 0 || strings.Contains(string(show), "nrecognized") {
		show, _ = exec.Command(inst.CC, "--showme").CombinedOutput()
	}
	inst.Show = string(show)
	return deps, nil
}

// lineMarker is a preprocessor's line marker, which names a file it read.
var lineMarker = regexp.MustCompile(`(?m)^# \d+ "(/[^"]+)"`)

// wrapperMatches reports whether cc is a compiler wrapper of this
// implementation that links against the library directory libdir, and
// the headers its preprocessor read to tell.
func (inst *Install) wrapperMatches(cc, libdir string) ([]string, bool) {
	if _, err := os.Stat(cc); err != nil {
		return nil, false
	}
	// The wrapper's mpi.h says which MPI it is.
	pp := exec.Command(cc, "-E", "-x", "c", "-")
	pp.Stdin = strings.NewReader("#include <mpi.h>\n#if defined(OPEN_MPI)\nmpivet_impl_openmpi\n#elif defined(MPICH_VERSION)\nmpivet_impl_mpich\n#endif\n")
	pre, err := pp.Output()
	if err != nil || !bytes.Contains(pre, []byte("mpivet_impl_"+string(inst.Impl))) {
		return nil, false
	}
	var headers []string
	for _, m := range lineMarker.FindAllSubmatch(pre, -1) {
		if h := string(m[1]); !slices.Contains(headers, h) {
			headers = append(headers, h)
		}
	}
	var out []byte
	if inst.Impl == OpenMPI {
		out, err = exec.Command(cc, "--showme:link").Output()
	} else {
		out, err = exec.Command(cc, "-show").Output()
	}
	if err != nil {
		return nil, false
	}
	// Without -L the wrapper relies on the default search path; accept it
	// when the library lives in a system directory.
	if bytes.Contains(out, []byte("-L"+libdir)) || bytes.Contains(out, []byte("-L"+libdir+"/")) {
		return headers, true
	}
	return headers, !bytes.Contains(out, []byte("-L")) || strings.HasPrefix(libdir, "/usr/lib") || strings.HasPrefix(libdir, "/lib")
}

// launcherMatches checks the launcher's version output names the family.
func (inst *Install) launcherMatches(path string) bool {
	out, _ := exec.Command(path, "--version").CombinedOutput()
	s := strings.ToLower(string(out))
	if inst.Impl == OpenMPI {
		return strings.Contains(s, "open mpi") || strings.Contains(s, "open-mpi") || strings.Contains(s, "openrte")
	}
	return strings.Contains(s, "hydra") || strings.Contains(s, "mpich")
}

func (inst *Install) version() string {
	if inst.Impl == OpenMPI {
		out, _ := exec.Command(inst.Launcher, "--version").CombinedOutput()
		if m := regexp.MustCompile(`\(Open MPI\)\s*(\S+)`).FindSubmatch(out); m != nil {
			return "Open MPI " + string(m[1])
		}
		return "Open MPI"
	}
	out, _ := exec.Command(inst.Launcher, "--version").CombinedOutput()
	if m := regexp.MustCompile(`(?m)^\s*Version:\s*(\S+)`).FindSubmatch(out); m != nil {
		return "MPICH " + string(m[1])
	}
	return "MPICH"
}
