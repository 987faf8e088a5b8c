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
	"strings"
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
	for _, l := range libs {
		impl := implOfName(l.name)
		if impl == "" && l.path != "" {
			impl = implOfLib(l.path)
		}
		if impl == "" {
			continue
		}
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

// implOfLib recognises an MPI library by the symbols it defines.
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
// names, then the plain names on PATH.
func (inst *Install) findTools() error {
	real, _ := filepath.EvalSymlinks(inst.Lib)
	libdir := filepath.Dir(real)
	suffix := "." + string(inst.Impl)
	var ccs, runs []string
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
	for _, cc := range ccs {
		if inst.wrapperMatches(cc, libdir) {
			inst.CC = cc
			break
		}
	}
	if inst.CC == "" {
		return errorf("cannot build mpivet's layer for %s: its compiler wrapper mpicc was not found; install %s",
			inst.Impl.Pretty(), installHint(inst.Impl))
	}
	// Prefer the launcher next to the compiler wrapper (same installation).
	ccdir := filepath.Dir(inst.CC)
	ccsuffix := strings.TrimPrefix(filepath.Base(inst.CC), "mpicc")
	runs = append([]string{filepath.Join(ccdir, "mpirun"+ccsuffix), filepath.Join(ccdir, "mpiexec"+ccsuffix)}, runs...)
	for _, r := range runs {
		if p, err := exec.LookPath(r); err == nil && inst.launcherMatches(p) {
			inst.Launcher = p
			break
		}
	}
	if inst.Launcher == "" {
		return errorf("%s's launcher (mpirun or mpiexec) was not found; install %s, or pass --launcher", inst.Impl.Pretty(), installHint(inst.Impl))
	}
	inst.Version = inst.version()
	return nil
}

// wrapperMatches reports whether cc is a compiler wrapper of this
// implementation that links against the library directory libdir.
func (inst *Install) wrapperMatches(cc, libdir string) bool {
	if _, err := os.Stat(cc); err != nil {
		return false
	}
	// The wrapper's mpi.h says which MPI it is.
	pp := exec.Command(cc, "-E", "-x", "c", "-")
	pp.Stdin = strings.NewReader("#include <mpi.h>\n#if defined(OPEN_MPI)\nmpivet_impl_openmpi\n#elif defined(MPICH_VERSION)\nmpivet_impl_mpich\n#endif\n")
	if out, err := pp.Output(); err != nil || !bytes.Contains(out, []byte("mpivet_impl_"+string(inst.Impl))) {
		return false
	}
	var out []byte
	var err error
	if inst.Impl == OpenMPI {
		out, err = exec.Command(cc, "--showme:link").Output()
	} else {
		out, err = exec.Command(cc, "-show").Output()
	}
	if err != nil {
		return false
	}
	// Without -L the wrapper relies on the default search path; accept it
	// when the library lives in a system directory.
	if bytes.Contains(out, []byte("-L"+libdir)) || bytes.Contains(out, []byte("-L"+libdir+"/")) {
		return true
	}
	return !bytes.Contains(out, []byte("-L")) || strings.HasPrefix(libdir, "/usr/lib") || strings.HasPrefix(libdir, "/lib")
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
