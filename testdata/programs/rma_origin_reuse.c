/* Origin buffers used before their one-sided operation completes (2
 * ranks): rank 0 writes the origin buffer of an MPI_Put before the fence
 * that completes it, and reads the result of an MPI_Get before the flush
 * that completes it. Not an error: writing the Put's buffer after the
 * fence, reading the Get's after the flush.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, *win_mem;
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_allocate(1024 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win_mem, &win);
	int *out = malloc(1024 * sizeof(int)), *in = malloc(1024 * sizeof(int));
	for (int i = 0; i < 1024; i++)
		out[i] = i, in[i] = 0, win_mem[i] = rank;
	MPI_Win_fence(0, win);
	if (rank == 0) {
		MPI_Put(out, 1024, MPI_INT, 1, 0, 1024, MPI_INT, win);
		out[5] = -1; // want "buffer-reuse"
	}
	MPI_Win_fence(0, win);
	out[6] = -2;
	MPI_Win_fence(0, win);
	if (rank == 0) {
		MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
		MPI_Get(in, 1024, MPI_INT, 1, 0, 1024, MPI_INT, win);
		if (in[7] == 12345) // want "buffer-reuse"
			printf("unlikely\n");
		MPI_Win_flush(1, win);
		printf("%d\n", in[8]);
		MPI_Win_unlock(1, win);
	}
	MPI_Win_fence(0, win);
	free(out);
	free(in);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
