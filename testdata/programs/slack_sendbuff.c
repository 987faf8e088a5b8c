/* In the spirit of seed 001's sendbuff: three ranks send 1 MiB each to
 * rank 3's three wildcard receives. Rank 0 sends to rank 3 only after its
 * send to rank 1 completed, which needs rank 1's receive, posted after rank
 * 1's own send to rank 3 completed: without buffering, rank 1's message
 * comes before rank 0's. Buffering rank 0's first send lifts that. Every
 * order of the three sources is a matching (6), some needing that send
 * buffered; the exploration runs one interleaving per matching, and every
 * one is correct.
 * mpivet: np=4 verdict=ok interleavings=6
 */
#include <mpi.h>
#include <stdlib.h>

#define N (1 << 20)

int main(int argc, char **argv)
{
	int rank;
	char *a = calloc(N, 1), *b = calloc(N, 1);
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Isend(a, N, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		MPI_Send(b, N, MPI_CHAR, 3, 0, MPI_COMM_WORLD);
	} else if (rank == 1) {
		MPI_Isend(a, N, MPI_CHAR, 3, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		MPI_Recv(b, N, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else if (rank == 2) {
		MPI_Send(a, N, MPI_CHAR, 3, 0, MPI_COMM_WORLD);
	} else {
		for (int i = 0; i < 3; i++)
			MPI_Recv(a, N, MPI_CHAR, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	free(a);
	free(b);
	return 0;
}
