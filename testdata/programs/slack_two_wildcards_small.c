/* Seed 001, Fig. 1(a) with rank 2's second receive from MPI_ANY_SOURCE
 * too, 4-byte messages (eager): correct under every buffering (whichever send takes
 * the first receive, the other takes the second). The match of rank 0's
 * second send with the first receive needs rank 0's first send buffered:
 * the exploration replays it so (2 interleavings, one per matching), and
 * must not report the deadlock that forcing it without buffering gives.
 * mpivet: np=3 verdict=ok interleavings=2
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
		MPI_Wait(&r, MPI_STATUS_IGNORE);
	} else if (rank == 1) {
		MPI_Isend(a, N, MPI_CHAR, 2, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		MPI_Irecv(b, N, MPI_CHAR, 0, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
	} else {
		MPI_Irecv(a, N, MPI_CHAR, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		MPI_Irecv(b, N, MPI_CHAR, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	free(a);
	free(b);
	return 0;
}
