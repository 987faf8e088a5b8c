/* Each rank posts a receive from the other with tag 0 and then sends to it
 * synchronously, but rank 0 sends with tag 1: rank 1's send is taken by
 * rank 0's receive, while rank 0's send matches no receive rank 1 posted,
 * and rank 1 waits for rank 0's message forever. A posted receive releases
 * only a send it can match (same communicator, source and tag).
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, in = 0, out = 1;
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Irecv(&in, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r);
		MPI_Ssend(&out, 1, MPI_INT, 1, 1, MPI_COMM_WORLD); // want "deadlock"
	} else {
		MPI_Irecv(&in, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
		MPI_Ssend(&out, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Wait(&r, MPI_STATUS_IGNORE); // want "deadlock"
	MPI_Finalize();
	return 0;
}
