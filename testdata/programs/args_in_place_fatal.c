/* MPI_IN_PLACE given as the send buffer of MPI_Reduce on a rank that is not
 * the root, where the standard allows it only at the root. The layer reports
 * it (invalid-argument, sendbuf) before the MPI sees it: Open MPI then ends
 * the job with MPI_ERR_ARG, MPICH reads the constant as an address and
 * crashes inside the reduction.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, x = 1, y = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); /* right: in place at the root */
	MPI_Reduce(rank == 0 ? &x : MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); // want "invalid-argument" "program-failure"
	MPI_Finalize();
	return 0;
}
