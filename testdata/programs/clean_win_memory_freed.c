/* A window's memory freed at the right time: after MPI_Win_free (a window
 * over a part of a larger heap block, freed whole afterwards), after
 * MPI_Win_detach (a dynamic window), and other heap blocks freed while the
 * windows live, beside them. MPI_Win_allocate's memory is the MPI's: its
 * MPI_Win_free gives it back, whether or not the MPI took it from malloc.
 * win_memory_freed.c frees the memory before.
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int *block = calloc(1024, sizeof(int));
	int *other = malloc(64 * sizeof(int));
	MPI_Win win;
	MPI_Win_create(block + 256, 256 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	free(other); /* not the window's memory */
	int one = rank + 1;
	MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
	MPI_Put(&one, 1, MPI_INT, 1 - rank, 0, 1, MPI_INT, win);
	MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
	if (block[256] != 2 - rank) {
		fprintf(stderr, "rank %d: got %d\n", rank, block[256]);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Win_free(&win);
	free(block);

	MPI_Win dyn;
	MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn);
	double *att = calloc(256, sizeof(double));
	MPI_Win_attach(dyn, att, 256 * sizeof(double));
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_detach(dyn, att);
	free(att);
	MPI_Win_free(&dyn);

	int *abase;
	MPI_Win awin;
	MPI_Win_allocate(256 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &abase, &awin);
	double *tmp = malloc(100 * sizeof(double));
	MPI_Win_fence(MPI_MODE_NOPRECEDE, awin);
	MPI_Put(&one, 1, MPI_INT, 1 - rank, 3, 1, MPI_INT, awin);
	MPI_Win_fence(MPI_MODE_NOSUCCEED, awin);
	free(tmp);
	MPI_Win_free(&awin);
	MPI_Finalize();
	return 0;
}
