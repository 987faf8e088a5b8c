/* Seed 003, Fig. 1(d): a schedule-dependent deadlock. Rank 1 receives from
 * anyone, then from rank 2, then all enter a barrier. When the wildcard
 * receive takes rank 0's message, everything completes; when it takes rank
 * 2's, the second receive waits for rank 2, which waits in the barrier for
 * rank 1. Rank 2 sends late, so the native run takes rank 0's message;
 * exploration forces the other match and finds the deadlock (ranks 1 and 2
 * form its core; rank 0, whose message is buffered, waits in the barrier).
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1) {
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(&x, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
	} else {
		if (rank == 2)
			usleep(200000);
		MPI_Send(&rank, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD); // want "deadlock"
	MPI_Finalize();
	return 0;
}
