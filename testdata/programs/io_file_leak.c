/* A file opened and never closed: the data a rank wrote may not be in the
 * file when MPI_Finalize is called. The file is made in /tmp under a name
 * rank 0 chooses (and removed by rank 0 at the end).
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, x;
	char name[256];
	MPI_File fh;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		snprintf(name, sizeof name, "/tmp/mpivet-io-leak-%d", (int)getpid());
	MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
	x = rank;
	MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh); // want "resource-leak"
	MPI_File_write_at(fh, rank * sizeof x, &x, 1, MPI_INT, MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		unlink(name);
	MPI_Finalize();
	return 0;
}
