/* A receive too small for its message with the default (fatal) error
 * handler: the MPI ends the job inside the receive. The layer's own handler
 * on MPI_COMM_WORLD logs the error class before the MPI's fatal handler
 * ends the job, so this does not depend on what the MPI prints or on how
 * quickly its launcher kills the ranks.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, out[4] = {1, 2, 3, 4}, in[4];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		MPI_Send(out, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
	else
		MPI_Recv(in, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "truncation"
	MPI_Finalize();
	return 0;
}
