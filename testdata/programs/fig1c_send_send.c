/* Seed 003, Fig. 1(c): both ranks send first, then receive. With messages
 * too large for the MPI's eager buffers, both sends wait for a receive that
 * is never posted: the program relies on buffering the standard does not
 * guarantee (unsafe-buffering, not a plain deadlock).
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdlib.h>

#define N (1 << 20)

int main(int argc, char **argv)
{
	int rank;
	char *out = calloc(N, 1), *in = calloc(N, 1);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int peer = 1 - rank;
	MPI_Send(out, N, MPI_CHAR, peer, 0, MPI_COMM_WORLD); // want "unsafe-buffering"
	MPI_Recv(in, N, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	free(out);
	free(in);
	return 0;
}
