package mpi

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

var helloSources = map[string]string{
	"hello.c":   "#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n",
	"hello.cpp": "#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n",
	"hello.f90": "program hello\n  include 'mpif.h'\n  integer :: ierr\n  call MPI_Init(ierr)\n  call MPI_Finalize(ierr)\nend program hello\n",
}

// A program in C, C++ or Fortran is found to use its MPI through the
// MPI's own library, not through a library built on it that the loader
// lists first (Open MPI's C++ and Fortran bindings, MPICH's Fortran
// library): the layer's build is keyed by that library, and one MPI must
// be built once, whatever the language of the program.
func TestProgramNamesTheMPILibrary(t *testing.T) {
	t.Setenv("MPIVET_CACHE", t.TempDir())
	for _, c := range []struct {
		impl     Impl
		lib      string
		wrappers map[string]string // source -> compiler wrapper
	}{
		{OpenMPI, "libmpi.so.40", map[string]string{"hello.c": "mpicc.openmpi", "hello.cpp": "mpicxx.openmpi", "hello.f90": "mpif90.openmpi"}},
		{MPICH, "libmpich.so.12", map[string]string{"hello.c": "mpicc.mpich", "hello.cpp": "mpicxx.mpich", "hello.f90": "mpif90.mpich"}},
	} {
		t.Run(string(c.impl), func(t *testing.T) {
			dir := t.TempDir()
			for src, cc := range c.wrappers {
				if _, err := exec.LookPath(cc); err != nil {
					t.Skipf("%s not installed", cc)
				}
				p, bin := filepath.Join(dir, src), filepath.Join(dir, src+".bin")
				os.WriteFile(p, []byte(helloSources[src]), 0o644)
				if out, err := exec.Command(cc, "-o", bin, p).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", cc, err, out)
				}
				inst, err := Program(bin)
				if err != nil {
					t.Fatalf("%s: %v", src, err)
				}
				if inst.Impl != c.impl || filepath.Base(inst.Lib) != c.lib {
					t.Errorf("%s: %s through %s, want %s through %s", src, inst.Impl, inst.Lib, c.impl, c.lib)
				}
			}
		})
	}
}
