/* A send to a rank that does not exist, on a communicator derived from
 * MPI_COMM_WORLD (it inherits the default, fatal error handler): the MPI ends
 * the job inside the send. The report names the call, its line and the
 * error class (MPI_ERR_RANK). Before that, a program-set MPI_ERRORS_RETURN
 * on another communicator returns an error to the program, which is an
 * mpi-error, not a failure. Both sends are reported as invalid-argument
 * first, by the layer, before the MPI sees the rank.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, size, x = 1;
	MPI_Comm dup, quiet;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_dup(MPI_COMM_WORLD, &quiet);
	MPI_Comm_set_errhandler(quiet, MPI_ERRORS_RETURN);
	if (rank == 0)
		MPI_Send(&x, 1, MPI_INT, size + 3, 0, quiet); // want "mpi-error" "invalid-argument"
	MPI_Barrier(dup);
	if (rank == 1)
		MPI_Send(&x, 1, MPI_INT, size + 5, 0, dup); // want "program-failure" "invalid-argument"
	MPI_Barrier(dup);
	MPI_Comm_free(&quiet);
	MPI_Comm_free(&dup);
	MPI_Finalize();
	return 0;
}
