package corpus

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hdf5 is Debian's parallel HDF5 on Open MPI (libhdf5-openmpi-dev).
const (
	hdf5Include = "/usr/include/hdf5/openmpi"
	hdf5Lib     = "/usr/lib/x86_64-linux-gnu/hdf5/openmpi"
)

// A small correct parallel HDF5 program (a dataset written collectively,
// read back and checked) is clean under mpivet, prints what it prints
// natively, and its MPI-IO calls are in the records: the opens with the
// file's name, the views HDF5 sets, the collective writes, the closes.
func TestHDF5CollectiveWrite(t *testing.T) {
	parallel(t)
	if _, err := os.Stat(filepath.Join(hdf5Include, "hdf5.h")); err != nil {
		t.Skip("no parallel HDF5 on Open MPI (libhdf5-openmpi-dev)")
	}
	if _, err := exec.LookPath("mpicc.openmpi"); err != nil {
		t.Skip("no Open MPI")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "h5_collective")
	src := filepath.Join("..", "testdata", "hdf5", "h5_collective.c")
	if out, err := exec.Command("mpicc.openmpi", "-g", "-I"+hdf5Include, "-o", bin, src, "-L"+hdf5Lib, "-lhdf5").CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", src, err, out)
	}
	run := filepath.Join(dir, "run")
	data := filepath.Join(dir, "grid.h5")
	out, err := exec.Command(mpivetBin, "run", "-n", "4", "--timeout", "120s", "--dir", run, "--no-color", bin, data).CombinedOutput()
	said := "\n" + string(out) // the program's "ok", after mpivet's notices (a layer built) if any
	if err != nil || !strings.Contains(string(out), "verdict: ok") || !strings.Contains(said, "\nok\n") {
		t.Fatalf("mpivet run: %v\n%s", err, out)
	}
	dump, err := exec.Command(mpivetBin, "dump", run, "--rank", "0").CombinedOutput()
	if err != nil {
		t.Fatalf("mpivet dump: %v\n%s", err, dump)
	}
	for _, want := range []string{`MPI_File_open(comm=`, `filename="` + data + `"`, "MPI_File_set_view(", "MPI_File_write_at_all(", "MPI_File_close("} {
		if !strings.Contains(string(dump), want) {
			t.Errorf("rank 0's records have no %s:\n%s", want, dump)
		}
	}
}
