/* Seed 000, Fig. 2.5: head-to-head Isend immediately waited for, before the
 * receive is posted; with a large message neither Wait can return.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdlib.h>

#define COUNT (1 << 18)

int main(int argc, char **argv)
{
	int rank;
	int *buf = calloc(COUNT, sizeof(int));
	MPI_Request h;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank < 2) {
		int peer = 1 - rank;
		MPI_Isend(buf, COUNT, MPI_INT, peer, 0, MPI_COMM_WORLD, &h);
		MPI_Wait(&h, MPI_STATUS_IGNORE); // want "unsafe-buffering"
		MPI_Irecv(buf, COUNT, MPI_INT, peer, 0, MPI_COMM_WORLD, &h);
		MPI_Wait(&h, MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	free(buf);
	return 0;
}
