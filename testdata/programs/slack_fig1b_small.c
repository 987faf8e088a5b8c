/* Seed 001, Fig. 1(b): Fig. 1(a) with barriers, 4-byte messages. Rank 0's
 * first send must be buffered for rank 0 to reach the barrier (the MPI
 * does, eagerly); rank 0's second send, issued before the barrier, and
 * rank 1's, issued after it, then both race for rank 2's wildcard receive,
 * posted before the barrier. When rank 0's takes it, rank 2's receive from
 * rank 0 waits forever. The run itself shows it, and the report names the
 * send that had to be buffered (the MPI did, eagerly).
 * mpivet: np=3 verdict=error says=buffered
 */
#include <mpi.h>
#include <stdlib.h>

#define N 4

int main(int argc, char **argv)
{
	int rank;
	char *a = calloc(N, 1), *b = calloc(N, 1);
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Isend(a, N, MPI_CHAR, 1, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		MPI_Isend(b, N, MPI_CHAR, 2, 0, MPI_COMM_WORLD, &r);
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
	} else if (rank == 1) {
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Isend(a, N, MPI_CHAR, 2, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		MPI_Irecv(b, N, MPI_CHAR, 0, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
	} else {
		MPI_Irecv(a, N, MPI_CHAR, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &r);
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		MPI_Irecv(b, N, MPI_CHAR, 0, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE); // want "deadlock"
	}
	MPI_Finalize(); // want "deadlock"
	free(a);
	free(b);
	return 0;
}
