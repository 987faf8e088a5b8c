/* MPI_Get of 50008 ints from the peer's window into a heap block of 50000:
 * the origin buffer runs 32 bytes past its block, reported at the Get's
 * line with where the block was allocated. (The block is large enough for
 * the allocator to map it whole: the bytes too many land in the last
 * page's slack, not on another block.) heap_clean.c gets exactly its block.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdlib.h>

#define N 100000

int main(int argc, char **argv)
{
	int rank, *base;
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	int *mine = malloc(N / 2 * sizeof(int));
	MPI_Win_fence(0, win);
	MPI_Get(mine, N / 2 + 8, MPI_INT, 1 - rank, 0, N / 2 + 8, MPI_INT, win); // want "buffer-overrun"
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);
	free(mine);
	MPI_Finalize();
	return 0;
}
