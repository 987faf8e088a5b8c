/* Ranks 1 and 2 exchange 1 MiB with MPI_Sendrecv, but each receives rank
 * 0's message in it, and the other's only after it: their sends are
 * rendezvous, and neither destination posts a matching receive while it
 * is in its Sendrecv. A deadlock that buffering would remove
 * (unsafe-buffering). Rank 0 computes 2.5 s first; while it does, ranks 1
 * and 2 wait for it, and are not reported (with small, eager messages their
 * sends may have completed); once rank 0 has sent and called MPI_Finalize,
 * only their sends keep them.
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

#define N (1 << 18) /* ints: 1 MiB, above both MPIs' eager limits */

int main(int argc, char **argv)
{
	int rank, go = 1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int *a = calloc(N, sizeof(int)), *b = calloc(N, sizeof(int));
	if (rank == 0) {
		usleep(2500000);
		MPI_Send(&go, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
		MPI_Send(&go, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
	} else {
		int peer = 3 - rank;
		MPI_Sendrecv(a, N, MPI_INT, peer, 1, &go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "unsafe-buffering"
		MPI_Recv(b, N, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	free(a);
	free(b);
	MPI_Finalize();
	return 0;
}
