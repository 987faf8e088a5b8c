/* A halo exchange of columns with an MPI_Type_vector: while the halo columns
 * are in flight the rank updates the interior, which lies in the same pages
 * (between the strided elements of the datatype) -- correct. In the first
 * iteration it also writes a halo cell of the pending receive: an error,
 * reported with its line. (A write after many iterations of such false
 * sharing: buffer_false_sharing_late.c.)
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 32 /* rows; each row has N+2 columns, halo in columns 0 and N+1 */

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	double (*u)[N + 2] = calloc(N, sizeof *u);
	MPI_Datatype column;
	MPI_Type_vector(N, 1, N + 2, MPI_DOUBLE, &column);
	MPI_Type_commit(&column);
	for (int it = 0; it < 10; it++) {
		MPI_Request r[4];
		MPI_Irecv(&u[0][0], 1, column, left, 0, MPI_COMM_WORLD, &r[0]);
		MPI_Irecv(&u[0][N + 1], 1, column, right, 1, MPI_COMM_WORLD, &r[1]); // want "buffer-reuse"
		MPI_Isend(&u[0][N], 1, column, right, 0, MPI_COMM_WORLD, &r[2]);
		MPI_Isend(&u[0][1], 1, column, left, 1, MPI_COMM_WORLD, &r[3]);
		if (it == 0)
			u[N / 2][N + 1] = -1; // want "buffer-reuse"
		for (int i = 0; i < N; i++)
			for (int j = 2; j < N; j++) /* the interior, not the sent columns */
				u[i][j] = 0.5 * u[i][j] + it;
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
