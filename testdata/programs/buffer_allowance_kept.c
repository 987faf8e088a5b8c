/* A loop over data that shares pages with pending buffers must not use up
 * the precision left for the rest of the run. First, 1500 iterations of a
 * correct halo exchange of columns overlapped with the interior update:
 * every interior access faults on a page of a pending column, always from
 * the same instructions. mpivet demotes such a page after a few faults of
 * one instruction in one window (for longer each time), instead of
 * single-stepping them until its stepping allowance is spent. Then, in a
 * function of its own, the rank receives into a buffer on its stack and,
 * after some other stack accesses in straight-line code, reads the pending
 * buffer: that read must still be caught at its line. (Had the loop spent
 * the allowance, the stack page would have been opened at the first write
 * to it, and the read would have gone unseen.)
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 32 /* rows; each row has N+2 columns, halo in columns 0 and N+1 */
#define ITERS 1500

static int __attribute__((noinline)) late(int peer, int v)
{
	int buf[4] = {0};
	volatile int a = v, b = v + 1, c = v + 2, d = v + 3;
	MPI_Request r;
	MPI_Irecv(buf, 4, MPI_INT, peer, 9, MPI_COMM_WORLD, &r); // want "buffer-reuse"
	a = b + 1;
	b = c * 2;
	c = d - a;
	d = a + b + c;
	int x = buf[2]; // want "buffer-reuse"
	int mine[4] = {a, b, c, d};
	MPI_Send(mine, 4, MPI_INT, peer, 9, MPI_COMM_WORLD);
	MPI_Wait(&r, MPI_STATUS_IGNORE); // want "buffer-reuse"
	return x + buf[1];
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	double(*u)[N + 2] = calloc(N, sizeof *u);
	MPI_Datatype column;
	MPI_Type_vector(N, 1, N + 2, MPI_DOUBLE, &column);
	MPI_Type_commit(&column);
	for (int it = 0; it < ITERS; it++) {
		MPI_Request r[4];
		MPI_Irecv(&u[0][0], 1, column, left, 0, MPI_COMM_WORLD, &r[0]);
		MPI_Irecv(&u[0][N + 1], 1, column, right, 1, MPI_COMM_WORLD, &r[1]);
		MPI_Isend(&u[0][N], 1, column, right, 0, MPI_COMM_WORLD, &r[2]);
		MPI_Isend(&u[0][1], 1, column, left, 1, MPI_COMM_WORLD, &r[3]);
		for (int i = 0; i < N; i++)
			for (int j = 2; j < N; j++) /* the interior, not the sent columns */
				u[i][j] = 0.5 * u[i][j] + it;
		MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
		for (int i = 0; i < N; i++)
			u[i][1] = u[i][N] = u[i][0] + u[i][N + 1];
	}
	MPI_Type_free(&column);
	int x = late(1 - rank, rank);
	if (rank == 0)
		printf("%g %d\n", u[1][1], x);
	free(u);
	MPI_Finalize();
	return 0;
}
