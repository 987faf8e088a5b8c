/* Seed 003, Fig. 8: Fig. 1(d) with nonblocking receives. Rank 1 posts a
 * wildcard Irecv and an Irecv from rank 2 and waits for both; if the wildcard
 * takes rank 2's message, the Waitall never returns while ranks 0 and 2 wait
 * in the barrier. The MPI never reports the wildcard's match to the program
 * (the completion call hangs), so the deadlock must be found without it.
 * Rank 2 sends late; exploration forces the deadlocking match.
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, x[2] = {0, 0};
	MPI_Request reqs[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1) {
		MPI_Irecv(&x[0], 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &reqs[0]);
		MPI_Irecv(&x[1], 1, MPI_INT, 2, 0, MPI_COMM_WORLD, &reqs[1]);
		MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE); // want "deadlock"
	} else {
		if (rank == 2)
			usleep(200000);
		MPI_Send(&rank, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD); // want "deadlock"
	MPI_Finalize();
	return 0;
}
