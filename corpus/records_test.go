package corpus

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// recordsMany is a correct program that records more than a 2 MiB file
// system holds: 20,000 reductions on each of 2 ranks (over 1 MiB of records each).
const recordsMany = `/* mpivet: np=2 verdict=ok */
#include <mpi.h>

int main(int argc, char **argv)
{
	int x = 1;
	MPI_Init(&argc, &argv);
	for (int i = 0; i < 20000; i++)
		MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
`

// smallFS mounts a tmpfs of 2 MiB (unmounted at the end of the test), or
// skips the test where mounting is not permitted.
func smallFS(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mounting a small tmpfs (to fill it) is not permitted here: %v: %s", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fill writes a file in dir until its file system has no room left.
func fill(t *testing.T, dir string) {
	f, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling %s: %v", dir, err)
			}
			return
		}
	}
}

// runFull runs mpivet on bin with its run directory run, and wants exit
// status 2 and mpivet's own failure to write the file want, never a
// finding against the program.
func runFull(t *testing.T, bin, run, want string) {
	t.Helper()
	out, err := exec.Command(mpivetBin, "run", "-n", "2", "--records=full", "--timeout", "60s", "--dir", run, "--no-color", bin).CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("mpivet: %v", err)
	}
	msg := "mpivet could not write its records: " + want
	if code != 2 || !strings.Contains(string(out), msg) || !strings.Contains(string(out), ": no space left on device\n") {
		t.Errorf("exit %d, want 2 and %q ...: no space left on device:\n%s", code, msg, out)
	}
	for _, bad := range []string{"program-failure", "verdict:", "panic", "goroutine"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("the output says %q: a full disk is mpivet's failure, not the program's:\n%s", bad, out)
		}
	}
}

// A full file system under the run directory is mpivet's failure (exit
// status 2, the file it could not write and why), never the program's:
// when the ranks' logs fill it during the run (the layer reserves a log's
// blocks ahead of its writer, so no rank dies of SIGBUS), and when it is
// full before the run starts (mpivet's own command.json). The same
// program with room for its records is clean.
func TestFullDisk(t *testing.T) {
	parallel(t)
	for _, m := range available(t) {
		t.Run(m.name, func(t *testing.T) {
			fs := smallFS(t)
			dir := t.TempDir()
			src, bin := filepath.Join(dir, "records_many.c"), filepath.Join(dir, "records_many")
			if err := os.WriteFile(src, []byte(recordsMany), 0o644); err != nil {
				t.Fatal(err)
			}
			compile(t, m, src, bin)
			p := &Program{Path: src, NP: 2, Timeout: "60s", Dir: dir}
			if r, out, code := RunMpivet(t, p, bin, "--max-interleavings", "1"); code != 0 || r.Verdict != "ok" {
				t.Fatalf("with room for its records: exit %d, verdict %q, want 0, ok:\n%s", code, r.Verdict, out)
			}
			run := filepath.Join(fs, "run")
			runFull(t, bin, run, run+"/p.")
			fill(t, fs)
			run2 := filepath.Join(fs, "run2")
			runFull(t, bin, run2, filepath.Join(run2, "command.json"))
		})
	}
}
