/* Buffers that run out of the heap blocks that hold them: an MPI_Allgather
 * of 25008 ints from each of 2 ranks into a block of 50000 ints, and a
 * receive of 25008 doubles into a block of 25000. The layer knows each
 * block's size from the allocator (malloc interposed): both are reported
 * before the MPI writes past the blocks, with where each was allocated.
 * (The blocks are large enough for the allocator to map them whole: the 64
 * bytes too many land in the last page's slack, not on another block.)
 * heap_clean.c does the same within its blocks.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdlib.h>

#define N 50000

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int *mine = calloc(N, sizeof(int));
	int *all = malloc(N * sizeof(int));
	MPI_Allgather(mine, N / 2 + 8, MPI_INT, all, N / 2 + 8, MPI_INT, MPI_COMM_WORLD); // want "buffer-overrun"
	double *x = calloc(N, sizeof(double));
	double *y = malloc(N / 2 * sizeof(double));
	if (rank == 0)
		MPI_Send(x, N / 2 + 8, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
	else
		MPI_Recv(y, N / 2 + 8, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "buffer-overrun"
	free(x);
	free(y);
	free(all);
	free(mine);
	MPI_Finalize();
	return 0;
}
