/* Seed 003, Fig. 1(b): both ranks receive before they send.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int peer = 1 - rank;
	MPI_Recv(&x, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
	MPI_Send(&x, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
