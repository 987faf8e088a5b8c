/* Origin buffers of request-based one-sided operations used before their
 * request completes (2 ranks, MPI_Win_lock_all): rank 0 writes the origin
 * buffer of an MPI_Rput, and reads the result buffer of an MPI_Rget, before
 * the MPI_Wait that completes each. Not an error: the same buffers used
 * after their MPI_Wait (clean_rma_request.c is the twin).
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, *win_mem;
	MPI_Win win;
	MPI_Request req;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_allocate(1024 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win_mem, &win);
	int *out = malloc(1024 * sizeof(int)), *in = malloc(1024 * sizeof(int));
	for (int i = 0; i < 1024; i++)
		out[i] = i, in[i] = 0, win_mem[i] = rank;
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		MPI_Win_lock_all(0, win);
		MPI_Rput(out, 1024, MPI_INT, 1, 0, 1024, MPI_INT, win, &req);
		out[5] = -1; // want "buffer-reuse"
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		out[6] = -2;
		MPI_Win_flush(1, win);
		MPI_Rget(in, 1024, MPI_INT, 1, 0, 1024, MPI_INT, win, &req);
		if (in[7] == 12345) // want "buffer-reuse"
			printf("unlikely\n");
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		printf("%d\n", in[8]);
		MPI_Win_unlock_all(win);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	free(out);
	free(in);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
