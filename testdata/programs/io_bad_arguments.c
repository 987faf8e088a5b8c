/* File calls given arguments the standard does not allow, each on its own
 * line: access modes MPI_File_open refuses, a negative offset, a view whose
 * filetype was never committed, a negative count, and a file handle used
 * after its file was closed. A file's errors are returned (its default
 * error handler is MPI_ERRORS_RETURN), so the run goes on past each. (Open
 * MPI writes at the negative offset without an error.)
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, a[4] = {1, 2, 3, 4};
	char name[256];
	MPI_File fh, copy;
	MPI_Datatype pairs;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		snprintf(name, sizeof name, "/tmp/mpivet-io-args-%d", (int)getpid());
	MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
	MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh); // want "invalid-argument" "mpi-error"
	MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL | MPI_MODE_CREATE, MPI_INFO_NULL, &fh); // want "invalid-argument" "mpi-error"
	MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh); // want "invalid-argument" "mpi-error"
	MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
	MPI_File_write_at(fh, -8, a, 4, MPI_INT, MPI_STATUS_IGNORE); // want "invalid-argument" want(mpich) "mpi-error"
	MPI_File_write_at(fh, 0, a, -1, MPI_INT, MPI_STATUS_IGNORE); // want "invalid-argument" "mpi-error"
	MPI_Type_contiguous(2, MPI_INT, &pairs);
	MPI_File_set_view(fh, 0, MPI_INT, pairs, "native", MPI_INFO_NULL); // want "invalid-argument" "mpi-error"
	MPI_Type_free(&pairs);
	copy = fh;
	MPI_File_close(&fh);
	MPI_File_close(&fh); // want "invalid-argument" "mpi-error"
	MPI_File_get_size(copy, &(MPI_Offset){0}); // want "invalid-argument" "mpi-error"
	MPI_Finalize();
	return 0;
}
