/* An MPI_File_open of a file that does not exist, whose error the program
 * ignores: a file's errors are returned (its default error handler is
 * MPI_ERRORS_RETURN), not fatal, so the run goes on with a handle that is
 * MPI_FILE_NULL and reads nothing. The finding names the file.
 * mpivet: np=2 verdict=error says=mpivet-no-such-file
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank;
	char name[256];
	MPI_File fh;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		snprintf(name, sizeof name, "/tmp/mpivet-no-such-file-%d", (int)getpid());
	MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
	MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh); // want "mpi-error"
	if (rank == 0)
		printf("opened\n");
	MPI_Finalize();
	return 0;
}
