/* Split collectives misused: a write_all_begin whose end never comes
 * before the file is closed, and a read_all_begin followed by another
 * begin on the same file before its end (one split collective may be
 * active per file handle: both MPIs return an error), and the file closed
 * with the first still pending.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, a[4] = {1, 2, 3, 4}, b[4];
	char name[256];
	MPI_File fh;
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		snprintf(name, sizeof name, "/tmp/mpivet-io-split-%d", (int)getpid());
	MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
	MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
	MPI_File_set_view(fh, rank * sizeof a, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
	MPI_File_write_all_begin(fh, a, 4, MPI_INT); // want "request-lifecycle"
	MPI_File_close(&fh);

	MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
	MPI_File_read_at_all_begin(fh, 0, b, 4, MPI_INT); // want "request-lifecycle"
	MPI_File_write_at_all_begin(fh, 0, a, 4, MPI_INT); // want "request-lifecycle" "mpi-error"
	MPI_File_close(&fh);
	MPI_Finalize();
	return 0;
}
