package mpi

import (
	"bufio"
	"bytes"
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Find returns the MPI installation a program will use, also when the
// program is not linked against MPI but loads it at run time: a Python
// interpreter whose scripts import mpi4py (whose extension module is linked
// against one MPI), or a program that dlopens libmpi or a plugin linked
// against it. choice ("" , "openmpi" or "mpich", from --mpi) names the MPI
// when the program cannot tell; it must agree with what the program can.
//
// Why this matters: mpivet preloads a layer built against exactly the MPI
// the program will load. A layer of the other family would make the rank
// load two MPIs.
func Find(path string, choice string) (*Install, error) {
	var want Impl
	switch choice {
	case "":
	case "openmpi", "open-mpi", "ompi":
		want = OpenMPI
	case "mpich":
		want = MPICH
	default:
		return nil, errorf("--mpi=%s: must be openmpi or mpich", choice)
	}
	if interp := shebang(path); interp != "" {
		// A script the kernel runs with its interpreter (#!/usr/bin/python3):
		// the interpreter loads the MPI.
		if st, err := os.Stat(path); err == nil && st.Mode()&0o111 == 0 {
			return nil, errorf("%s: not an executable file (make it one, or run it with its interpreter: mpivet run -n N %s %s)", path, interp, path)
		}
		if !isPython(interp) && want == "" && strings.HasPrefix(filepath.Base(path), "python") {
			return nil, errorf("%s is not a Python interpreter but a script run by %s (a wrapper, such as pyenv's shims): run the interpreter itself, e.g. /usr/bin/python3", path, interp)
		}
		if !isPython(interp) && want == "" {
			return nil, errorf("%s: not an executable program but a script run by %s, which is not a Python interpreter (mpivet runs compiled MPI programs and Python scripts; to run another script, run the program it starts, or say which MPI %s loads with --mpi openmpi or --mpi mpich)", path, interp, filepath.Base(interp))
		}
		if isPython(interp) {
			return python(interp, want)
		}
		return installed(want)
	}
	inst, err := Program(path)
	var e *Error
	if err == nil || !errors.As(err, &e) || !e.unlinked {
		if err == nil && want != "" && want != inst.Impl {
			return nil, errorf("%s is linked against %s (%s), not %s: drop --mpi, or rebuild it", path, inst.Impl.Pretty(), inst.Lib, want.Pretty())
		}
		return inst, err
	}
	if isPython(path) {
		return python(path, want)
	}
	if want == "" {
		// A program that dlopens libmpi names it: its soname is in the program's strings.
		want = namedInProgram(path)
	}
	if want == "" {
		return nil, errorf("%s is not an MPI program: it is not linked against an MPI library (Open MPI or MPICH); if it loads MPI at run time (dlopen, a plugin), say which with --mpi openmpi or --mpi mpich", path)
	}
	return installed(want)
}

// shebang returns the interpreter of an executable script ("#!/usr/bin/env
// python3" gives python3's path on PATH), or "".
func shebang(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	if !strings.HasPrefix(line, "#!") {
		return ""
	}
	fields := strings.Fields(line[2:])
	if len(fields) == 0 {
		return ""
	}
	interp := fields[0]
	if filepath.Base(interp) == "env" && len(fields) > 1 {
		if p, err := exec.LookPath(fields[1]); err == nil {
			return p
		}
		return ""
	}
	return interp
}

// isPython reports whether the program is a CPython interpreter: it
// defines or imports Py_BytesMain (linked statically with libpython, as
// Debian's python3, or dynamically).
func isPython(path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	syms, _ := f.DynamicSymbols()
	for _, s := range syms {
		if s.Name == "Py_BytesMain" || s.Name == "Py_Main" {
			return true
		}
	}
	return false
}

// python finds the MPI a Python interpreter will load: mpi4py's, from the
// linkage of its extension module, as this interpreter finds it (with the
// environment's PYTHONPATH, virtual environment, user site). The module is
// only located, not imported: importing it would initialise MPI here.
func python(interp string, want Impl) (*Install, error) {
	cmd := exec.Command(interp, "-c", "import importlib.util as u\ns = u.find_spec('mpi4py.MPI')\nprint(s.origin if s and s.origin else '')")
	cmd.Stderr = nil
	out, _ := cmd.Output()
	module := strings.TrimSpace(string(out))
	if module == "" {
		if want != "" {
			return installed(want)
		}
		return nil, errorf("%s is a Python interpreter without mpi4py (it loads no MPI by itself): install mpi4py for it (Debian: apt-get install python3-mpi4py, then run /usr/bin/python3), or, if the script loads MPI another way, say which with --mpi openmpi or --mpi mpich", interp)
	}
	libs, err := resolveLibs(module)
	if err != nil {
		return nil, err
	}
	if l, impl := mpiLib(libs); impl != "" {
		if l.path == "" {
			return nil, errorf("mpi4py (%s) needs %s (%s), which is not installed: install %s", module, l.name, impl.Pretty(), installHint(impl))
		}
		if want != "" && want != impl {
			return nil, errorf("mpi4py (%s) is built on %s, not %s: drop --mpi, or use an mpi4py built on %s", module, impl.Pretty(), want.Pretty(), want.Pretty())
		}
		inst := &Install{Impl: impl, Lib: l.path, Python: module}
		if err := inst.findTools(); err != nil {
			return nil, err
		}
		return inst, nil
	}
	return nil, errorf("mpi4py's extension module %s is not linked against an MPI library (Open MPI or MPICH); say which MPI it loads with --mpi openmpi or --mpi mpich", module)
}

// namedInProgram looks for the soname of an MPI library among the
// program's read-only strings (what a program passes to dlopen); it
// returns the family when exactly one is named.
func namedInProgram(path string) Impl {
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	found := map[Impl]bool{}
	for _, sec := range f.Sections {
		if sec.Name != ".rodata" {
			continue
		}
		data, err := sec.Data()
		if err != nil {
			continue
		}
		for _, s := range bytes.Split(data, []byte{0}) {
			name := filepath.Base(string(s))
			if impl := implOfName(name); impl != "" {
				found[impl] = true
			}
		}
	}
	if len(found) != 1 {
		return ""
	}
	for impl := range found {
		return impl
	}
	return ""
}

// installed finds an installed MPI of the family, as the dynamic linker
// would load it by soname: in LD_LIBRARY_PATH, then in ldconfig's cache.
func installed(impl Impl) (*Install, error) {
	names := []string{"libmpi.so.40", "libmpi.so.20"}
	if impl == MPICH {
		names = []string{"libmpich.so.12", "libmpi.so.12", "libmpich.so"}
	}
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv("LD_LIBRARY_PATH")) {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		for _, n := range names {
			if p := filepath.Join(d, n); fileExists(p) && implOfLib(p) == impl {
				return withTools(impl, p)
			}
		}
	}
	out, _ := exec.Command("ldconfig", "-p").Output()
	if len(out) == 0 {
		out, _ = exec.Command("/sbin/ldconfig", "-p").Output()
	}
	cache := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		name, rest, ok := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if _, p, ok2 := strings.Cut(rest, "=> "); ok && ok2 && cache[name] == "" {
			cache[name] = strings.TrimSpace(p)
		}
	}
	for _, n := range names {
		if p := cache[n]; p != "" && (implOfName(n) == impl || implOfLib(p) == impl) {
			return withTools(impl, p)
		}
	}
	return nil, errorf("%s is not installed (no %s): install %s", impl.Pretty(), names[0], installHint(impl))
}

func withTools(impl Impl, lib string) (*Install, error) {
	inst := &Install{Impl: impl, Lib: lib}
	if err := inst.findTools(); err != nil {
		return nil, err
	}
	return inst, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
