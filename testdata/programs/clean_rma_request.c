/* Correct request-based one-sided operations (2 ranks, MPI_Win_lock_all):
 * the origin buffers of MPI_Rput, MPI_Rget, MPI_Raccumulate and
 * MPI_Rget_accumulate are used only once their request is complete (its
 * MPI_Wait or a successful MPI_Test), or once an MPI_Win_flush completed
 * the operation before its MPI_Wait. Values are checked. The twin of
 * rma_request_reuse.c.
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void expect(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "wrong %s\n", what);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

int main(int argc, char **argv)
{
	int rank, *win_mem, flag = 0;
	MPI_Win win;
	MPI_Request req;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_allocate(1024 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win_mem, &win);
	int *out = malloc(1024 * sizeof(int)), *in = malloc(1024 * sizeof(int));
	for (int i = 0; i < 1024; i++)
		out[i] = i, in[i] = 0, win_mem[i] = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		MPI_Win_lock_all(0, win);
		MPI_Rput(out, 1024, MPI_INT, 1, 0, 1024, MPI_INT, win, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		out[5] = -1;
		MPI_Win_flush(1, win);
		MPI_Rget(in, 1024, MPI_INT, 1, 0, 1024, MPI_INT, win, &req);
		while (!flag)
			MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
		expect(in[7] == 7, "Rget");
		MPI_Raccumulate(out, 16, MPI_INT, 1, 0, 16, MPI_INT, MPI_SUM, win, &req);
		MPI_Win_flush(1, win);
		out[0] = 100; /* the flush completed it */
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		MPI_Rget_accumulate(out, 1, MPI_INT, in, 1, MPI_INT, 1, 1, 1, MPI_INT, MPI_SUM, win, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		expect(in[0] == 2, "Rget_accumulate");
		out[0] = 0;
		MPI_Win_unlock_all(win);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1)
		expect(win_mem[2] == 4 && win_mem[1] == 2 + 100, "window");
	free(out);
	free(in);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
