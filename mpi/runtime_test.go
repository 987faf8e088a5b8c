package mpi

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The MPI of a Python interpreter is mpi4py's, found from its extension
// module's linkage; --mpi must agree with it.
func TestFindPython(t *testing.T) {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import mpi4py").Run(); err != nil {
		t.Skip("no mpi4py for " + py)
	}
	if !isPython(py) {
		t.Fatalf("%s not recognised as a Python interpreter", py)
	}
	inst, err := Find(py, "")
	if err != nil {
		t.Fatal(err)
	}
	if inst.Impl != OpenMPI || inst.CC == "" || inst.Launcher == "" {
		t.Errorf("Debian's mpi4py: got %+v, want Open MPI with its tools", inst)
	}
	if _, err := Find(py, "mpich"); err == nil || !strings.Contains(err.Error(), "built on Open MPI") {
		t.Errorf("--mpi mpich with an Open MPI mpi4py: %v", err)
	}
}

// A program linked against no MPI needs --mpi, unless it names a libmpi
// (what it dlopens); a bad --mpi is refused.
func TestFindUnlinked(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler")
	}
	dir := t.TempDir()
	build := func(name, src string) string {
		c, bin := filepath.Join(dir, name+".c"), filepath.Join(dir, name)
		os.WriteFile(c, []byte(src), 0o644)
		if out, err := exec.Command("cc", "-o", bin, c, "-ldl").CombinedOutput(); err != nil {
			t.Fatalf("cc: %v\n%s", err, out)
		}
		return bin
	}
	plain := build("plain", "int main(void) { return 0; }\n")
	_, err := Find(plain, "")
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Msg, "--mpi openmpi") {
		t.Errorf("a program without MPI: %v, want a message naming --mpi", err)
	}
	if _, err := Find(plain, "lam"); err == nil || !strings.Contains(err.Error(), "must be openmpi or mpich") {
		t.Errorf("--mpi=lam: %v", err)
	}
	named := build("named", "#include <dlfcn.h>\nint main(void) { return dlopen(\"libmpich.so.12\", RTLD_NOW) == 0; }\n")
	if got := namedInProgram(named); got != MPICH {
		t.Errorf("a program that dlopens libmpich.so.12: %q, want mpich", got)
	}
	if got := namedInProgram(plain); got != "" {
		t.Errorf("a program naming no MPI: %q", got)
	}
	if _, err := exec.LookPath("mpicc.openmpi"); err == nil {
		if inst, err := Find(plain, "openmpi"); err != nil || inst.Impl != OpenMPI {
			t.Errorf("--mpi openmpi: %+v %v", inst, err)
		}
	}
}

// A Python script with a #! line is found through its interpreter.
func TestFindScript(t *testing.T) {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import mpi4py").Run(); err != nil {
		t.Skip("no mpi4py for " + py)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "s.py")
	os.WriteFile(script, []byte("#!"+py+"\nfrom mpi4py import MPI\n"), 0o755)
	if inst, err := Find(script, ""); err != nil || inst.Impl != OpenMPI || inst.Python == "" {
		t.Errorf("a #!%s script: %+v %v", py, inst, err)
	}
	sh := filepath.Join(dir, "s.sh")
	os.WriteFile(sh, []byte("#!/bin/sh\nexec ./app\n"), 0o755)
	if _, err := Find(sh, ""); err == nil || !strings.Contains(err.Error(), "--mpi") {
		t.Errorf("a shell script: %v", err)
	}
}
