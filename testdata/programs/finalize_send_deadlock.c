/* Rank 0 forgets to receive and calls MPI_Finalize while rank 1 sends it a
 * message too large for the MPI to buffer: rank 1 hangs in MPI_Send. That is
 * a deadlock whose explanation is the finalized receiver ("rank 1 sends to
 * rank 0, which has called MPI_Finalize"), not a reliance on buffering:
 * buffering would only turn it into a message nobody receives.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdlib.h>

#define N (1 << 20)

int main(int argc, char **argv)
{
	int rank;
	char *buf = calloc(N, 1);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1)
		MPI_Send(buf, N, MPI_CHAR, 0, 0, MPI_COMM_WORLD); // want "deadlock"
	MPI_Finalize(); // want "deadlock"
	free(buf);
	return 0;
}
