/* Seed 000, Fig. 2.7: rank 0 receives from anyone, then from rank 2. When
 * the wildcard receive takes rank 2's message, the second receive waits
 * forever (rank 1's message is never received). Exploration finds that
 * interleaving. Rank 2 sends late, so the native run usually matches rank 1
 * and the deadlock is found by a replay (the count of interleavings is not
 * checked: when the native run matches rank 2, it deadlocks itself and never
 * receives rank 1's message, so there is nothing more to explore).
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(&x, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
	} else {
		if (rank == 2)
			usleep(200000);
		MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize(); // want "deadlock"
	return 0;
}
