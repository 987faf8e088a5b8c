package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
