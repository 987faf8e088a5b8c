/* Seed 000, Fig. 5.22: the second wildcard receive takes any tag. Every
 * receive has exactly one possible match (rank 2 sends only after rank 0's
 * last receive, and that message is received by nobody), so exploration
 * must find a single interleaving: knowing the tag the MPI_ANY_TAG receive
 * matched keeps rank 2's message from looking like a match of the first.
 * mpivet: np=3 verdict=ok interleavings=1
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, a = 0, b = 0, c = 0, x = 1;
	MPI_Request h[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &h[0]);
		MPI_Irecv(&b, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &h[1]);
		MPI_Recv(&c, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(&x, 1, MPI_INT, 2, 100, MPI_COMM_WORLD);
		MPI_Wait(&h[0], MPI_STATUS_IGNORE);
		MPI_Wait(&h[1], MPI_STATUS_IGNORE);
		/* rank 2's message, so that the run ends cleanly */
		MPI_Recv(&c, 1, MPI_INT, 2, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else if (rank == 1) {
		MPI_Send(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
		MPI_Send(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
		MPI_Send(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
	} else {
		MPI_Recv(&x, 1, MPI_INT, 0, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
