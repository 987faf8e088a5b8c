/* Rank 1 sends to rank 0, then joins a broadcast from rank 0; rank 0
 * broadcasts before it receives. With synchronous sends this waits forever
 * if the broadcast synchronises, which the standard allows: the offline
 * replay, which takes every collective as synchronising, suspects it, and
 * mpivet runs the program again with zero buffering to confirm. The MPIs'
 * broadcast of one integer lets the root go on at once, but in that run
 * every blocking collective with data synchronises (as the standard lets
 * it), so the run deadlocks: the program relies on the MPI buffering the
 * send or not synchronising the broadcast (unsafe-buffering). Until the
 * zero-buffering run made collectives synchronise, this program was
 * buffering_suspect_unconfirmed.c, verdict ok with a note.
 * mpivet: np=2 verdict=error buffering=run
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, x = 0, y = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1) {
		MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD); // want "unsafe-buffering"
		MPI_Bcast(&y, 1, MPI_INT, 0, MPI_COMM_WORLD);
	} else {
		MPI_Bcast(&y, 1, MPI_INT, 0, MPI_COMM_WORLD); // want "unsafe-buffering"
		MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	return 0;
}
