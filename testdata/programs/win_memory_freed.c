/* A window's memory freed while the window still exposes it. Rank 0 frees
 * the heap block it gave MPI_Win_create, then calls MPI_Win_free; rank 1
 * frees a block attached to a dynamic window before MPI_Win_detach; rank 0
 * shrinks a window's block with realloc (in place or moved, the bytes
 * given back are the window's) before MPI_Win_free. Other
 * ranks may still Put into such memory (MPI 4.0 §12.2.1: the memory must
 * stay valid until the window is freed or the memory detached). No
 * rank touches the memory after the free, so the program ends natively;
 * the layer reports each free() with the call that gave the memory.
 * clean_win_memory_freed.c frees after MPI_Win_free and MPI_Win_detach.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int *base = calloc(512, sizeof(int));
	MPI_Win win;
	MPI_Win_create(base, 512 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	int one = rank + 1;
	MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
	MPI_Put(&one, 1, MPI_INT, 1 - rank, rank, 1, MPI_INT, win);
	MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
	if (rank == 0)
		free(base); // want "freed-buffer"
	MPI_Win_free(&win);
	if (rank != 0)
		free(base);

	MPI_Win dyn;
	MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn);
	double *att = calloc(256, sizeof(double));
	MPI_Win_attach(dyn, att, 256 * sizeof(double));
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1)
		free(att); // want "freed-buffer"
	MPI_Win_detach(dyn, att);
	if (rank != 1)
		free(att);
	MPI_Win_free(&dyn);

	int *big = calloc(1024, sizeof(int));
	MPI_Win bwin;
	MPI_Win_create(big, 1024 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &bwin);
	if (rank == 0)
		big = realloc(big, 256 * sizeof(int)); // want "freed-buffer"
	MPI_Win_free(&bwin);
	free(big);
	MPI_Finalize();
	return 0;
}
