/* Heavy false sharing, then a late error. A halo exchange of columns (an
 * MPI_Type_vector) overlapped with the update of the interior, which lies
 * in the same pages as the pending columns: every interior write faults.
 * Stepping each one would make the run many times slower, so once the
 * stepping allowance is spent, mpivet demotes such pages (opens them and
 * compares the pending bytes at the next MPI call). In the last of many
 * iterations the rank writes a halo cell of the pending receive. Whether
 * it is then caught at its line (if the allowance lasted) or between two
 * MPI calls (if the page was demoted), the finding names the receive and
 * the Waitall that completes it.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 32 /* rows; each row has N+2 columns, halo in columns 0 and N+1 */
#define ITERS 400

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
		MPI_Irecv(&u[0][N + 1], 1, column, right, 1, MPI_COMM_WORLD, &r[1]); // want "buffer-reuse"
		MPI_Isend(&u[0][N], 1, column, right, 0, MPI_COMM_WORLD, &r[2]);
		MPI_Isend(&u[0][1], 1, column, left, 1, MPI_COMM_WORLD, &r[3]);
		for (int i = 0; i < N; i++)
			for (int j = 2; j < N; j++) /* the interior, not the sent columns */
				u[i][j] = 0.5 * u[i][j] + it;
		if (it == ITERS - 1)
			u[N / 2][N + 1] = -1;
		MPI_Waitall(4, r, MPI_STATUSES_IGNORE); // want "buffer-reuse"
		for (int i = 0; i < N; i++)
			u[i][1] = u[i][N] = u[i][0] + u[i][N + 1];
	}
	MPI_Type_free(&column);
	if (rank == 0)
		printf("%g\n", u[1][1]);
	free(u);
	MPI_Finalize();
	return 0;
}
