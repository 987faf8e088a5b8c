/* A schedule-dependent deadlock behind polls: rank 1 receives from anyone
 * with MPI_Irecv and an MPI_Test loop, then from rank 2, then all enter a
 * barrier. When the wildcard receive takes rank 0's message, everything
 * completes; when it takes rank 2's, the second receive waits for rank 2,
 * which waits in the barrier. Rank 2 sends late, so the native run takes
 * rank 0's message. The poll that completes the receive is one of
 * thousands that found nothing: its match must be known all the same, so
 * that exploration forces the other one and finds the deadlock.
 * mpivet: np=3 verdict=error interleavings=2
 */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, x = 0, flag = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1) {
		MPI_Request r;
		MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &r);
		while (!flag)
			MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
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
