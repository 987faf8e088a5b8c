/* A receive too small for its message, on a communicator whose error
 * handler returns errors: MPI_ERR_TRUNCATE comes back to the program, and
 * the layer records it. The program goes on; the receive is reported.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, out[4] = {1, 2, 3, 4}, in[4];
	MPI_Comm c;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
	if (rank == 0)
		MPI_Send(out, 4, MPI_INT, 1, 0, c);
	else
		MPI_Recv(in, 1, MPI_INT, 0, 0, c, MPI_STATUS_IGNORE); // want "truncation"
	MPI_Comm_free(&c);
	MPI_Finalize();
	return 0;
}
