/* Collective file calls made differently: rank 0 opens a file with another
 * access mode than the others (MPICH's MPI_File_open then fails on every
 * rank with MPI_ERR_NOT_SAME, Open MPI's opens it), the last rank sets a view whose
 * etype differs from the others' (the etypes' extents in the file must be
 * the same on every rank), and then, on another file, rank 1 leaves out a
 * collective write every other rank makes, and the ranks wait for each
 * other in the write and the close (both MPIs' collective writes exchange
 * data between the ranks).
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size, a[4] = {1, 2, 3, 4};
	char name[256];
	MPI_File fh = MPI_FILE_NULL;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0)
		snprintf(name, sizeof name, "/tmp/mpivet-io-views-%d", (int)getpid());
	MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
	int amode = MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE | (rank == 0 ? MPI_MODE_WRONLY : MPI_MODE_RDWR);
	MPI_File_open(MPI_COMM_WORLD, name, amode, MPI_INFO_NULL, &fh); // want "collective-mismatch" want(mpich) "mpi-error"
	if (fh != MPI_FILE_NULL) // MPICH refuses the open on every rank, and leaves fh as it was
		MPI_File_close(&fh);
	MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
	if (rank == size - 1)
		MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_DOUBLE, "native", MPI_INFO_NULL); // want "collective-mismatch"
	else
		MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL); // want "collective-mismatch"
	MPI_File_close(&fh);

	MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) /* the run ends in a deadlock: the name goes now, the open file stays */
		unlink(name);
	MPI_File_set_view(fh, rank * sizeof a, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
	if (rank != 1)
		MPI_File_write_all(fh, a, 4, MPI_INT, MPI_STATUS_IGNORE); // want "collective-mismatch" "deadlock"
	MPI_File_close(&fh); // want "collective-mismatch" "deadlock"
	MPI_Finalize();
	return 0;
}
