package corpus

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// scratchProgram lists, from rank 0, the segments Open MPI's shared-memory
// transport made for the job where mpivet told it to put them, then
// deadlocks (both ranks receive first), so that mpivet ends the run with
// SIGKILL, which Open MPI cannot clean up after.
const scratchProgram = `#include <mpi.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	int rank, v = 0, n = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	const char *d = getenv("OMPI_MCA_btl_vader_backing_directory");
	DIR *dir = d ? opendir(d) : NULL;
	for (struct dirent *e; dir && (e = readdir(dir));)
		n += strncmp(e->d_name, "vader_segment", 13) == 0;
	if (rank == 0)
		printf("scratch %s: %d segments\n", d ? d : "(none)", n);
	fflush(stdout);
	MPI_Recv(&v, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Send(&v, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
`

// A run of Open MPI that mpivet kills leaves none of Open MPI's files (its
// session directory, its shared-memory segments): they are in a directory
// of the run's own, which mpivet removes (launch/scratch.go).
func TestOpenMPIFilesRemoved(t *testing.T) {
	parallel(t)
	for _, m := range available(t) {
		if m.name != "openmpi" {
			continue
		}
		src := filepath.Join(t.TempDir(), "scratch.c")
		os.WriteFile(src, []byte(scratchProgram), 0o644)
		bin := filepath.Join(t.TempDir(), "scratch")
		compile(t, m, src, bin)
		out, code := mpivet(t, "run", "-n", "2", "--no-color", "--dir", filepath.Join(t.TempDir(), "run"), bin)
		if code != 1 || !strings.Contains(out, "deadlock") {
			t.Fatalf("exit %d, want a deadlock:\n%s", code, out)
		}
		i := strings.Index(out, "scratch ")
		if i < 0 {
			t.Fatalf("the program did not say where its segments were:\n%s", out)
		}
		var dir string
		var n int
		if _, err := fmt.Sscanf(out[i:], "scratch %s %d segments", &dir, &n); err != nil || n < 2 || !strings.Contains(dir, "mpivet-ompi-") {
			t.Fatalf("segments not in mpivet's directory (%v): %q", err, out[i:])
		}
		dir = strings.TrimSuffix(dir, ":")
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s still exists after the run (%v)", dir, err)
		}
	}
}

// sleeper says it is ready from rank 0, then its ranks sleep outside MPI.
const sleeper = `#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("ready\n");
	fflush(stdout);
	sleep(30);
	MPI_Finalize();
	return 0;
}
`

// An mpivet killed with SIGKILL leaves its run's Open MPI directory; the
// next mpivet that runs Open MPI removes it (launch/scratch.go).
func TestKilledMpivetLeftoversRemoved(t *testing.T) {
	parallel(t)
	for _, m := range available(t) {
		if m.name != "openmpi" {
			continue
		}
		dir := t.TempDir()
		src := filepath.Join(dir, "sleeper.c")
		os.WriteFile(src, []byte(sleeper), 0o644)
		bin := filepath.Join(dir, "sleeper")
		compile(t, m, src, bin)
		out := filepath.Join(dir, "out.txt")
		f, _ := os.Create(out)
		defer f.Close()
		cmd := exec.Command(mpivetBin, "run", "-n", "2", "--timeout", "60s", "--dir", filepath.Join(dir, "run"), bin)
		cmd.Stdout, cmd.Stderr = f, f
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 300; i++ {
			if data, _ := os.ReadFile(out); strings.Contains(string(data), "ready") {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		left, _ := filepath.Glob(fmt.Sprintf("/dev/shm/mpivet-ompi-%d-*", cmd.Process.Pid))
		cmd.Process.Kill()
		cmd.Wait()
		if len(left) != 1 {
			data, _ := os.ReadFile(out)
			t.Fatalf("no run directory of mpivet (pid %d) in /dev/shm: %v\n%s", cmd.Process.Pid, left, data)
		}
		if _, err := os.Stat(left[0]); err != nil {
			t.Fatalf("the killed mpivet's directory is gone already (%v): the test proves nothing", err)
		}
		hello := filepath.Join(dir, "hello")
		os.WriteFile(src, []byte(cacheHello), 0o644)
		compile(t, m, src, hello)
		if o, code := mpivet(t, "run", "-n", "2", "--dir", filepath.Join(dir, "run2"), hello); code != 0 {
			t.Fatalf("exit %d:\n%s", code, o)
		}
		if _, err := os.Stat(left[0]); !os.IsNotExist(err) {
			t.Errorf("%s is still there after the next run (%v)", left[0], err)
		}
	}
}
