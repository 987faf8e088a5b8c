/* Seed 000, Fig. 1.1/3.2: the crooked barrier. Rank 1's wildcard Irecv is
 * posted before the barrier, rank 2 sends only after it, yet the Irecv can
 * match rank 2's message: it is only matched when rank 1 waits for it, after
 * its second wildcard receive. The native run practically always matches
 * rank 0 first; exploration forces the other match, where rank 1 aborts.
 * mpivet: np=3 verdict=error interleavings=2
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, x = 0, y = 0;
	MPI_Request req;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		x = 22;
		MPI_Isend(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
	} else if (rank == 1) {
		MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &req);
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Wait(&req, MPI_STATUS_IGNORE); // want "program-failure"
		if (x == 33)
			abort(); /* reported at the last MPI call */
	} else {
		x = 33;
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
