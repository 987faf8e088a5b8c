/* Misuse of large pending buffers whose pages a peer's kernel copies from
 * (single-copy shared memory): the sent row shares its first page with the
 * pending ghost row. The checker keeps that page readable for the peer, and
 * still catches the write into the sent row on it, and the read of the
 * ghost row on a page of its own. Its output must not change either.
 * mpivet: np=2 verdict=error sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	const int cols = 16384; /* 128 KiB rows */
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int peer = 1 - rank;
	double *a = malloc(3L * cols * sizeof *a);
	for (long i = 0; i < 3L * cols; i++)
		a[i] = i;
	MPI_Request r[2];
	MPI_Irecv(a, cols, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[0]); // want "buffer-reuse"
	MPI_Isend(a + cols, cols, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[1]); // want "buffer-reuse"
	double seen = *(volatile double *)&a[cols / 2]; // want "buffer-reuse"
	*(volatile double *)&a[cols] = seen; // want "buffer-reuse"
	MPI_Waitall(2, r, MPI_STATUSES_IGNORE); // want "buffer-reuse"
	if (rank == 0)
		printf("%g %g\n", a[1], a[2 * cols + 1]);
	free(a);
	MPI_Finalize();
	return 0;
}
