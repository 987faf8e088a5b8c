/* Rank 1's first wildcard receive can only match rank 0's synchronous send:
 * rank 2 sends only after rank 0's Ssend completed, which needs that
 * receive to have matched. Clocks cannot travel back with a synchronous
 * send's acknowledgement portably, so rank 2's message looks like a
 * potential match; the forced replay cannot happen (rank 1 waits for rank 2,
 * which waits for rank 0, which waits in Ssend) and must not be reported as
 * a deadlock of the program.
 * mpivet: np=3 verdict=ok
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Ssend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
		MPI_Send(&x, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
	} else if (rank == 1) {
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
