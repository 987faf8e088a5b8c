// mpivet: np=4 verdict=ok sameoutput=1 timeout=120s
// A ring halo exchange of rows of 4 KiB, 128 KiB and 2 MiB: above the eager
// limits, so shared-memory transports copy them with the peer's kernel
// (Open MPI's vader CMA get, UCX's cma rendezvous) while the sender
// computes. Each ghost row shares a page with the row sent next to it, and
// the receives are posted first, so a sent row's page also holds a pending
// receive buffer. The program prints its checksums: mpivet must not change
// what it prints (no transport error messages, no crash).
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double exchange(int cols, int rank, int size)
{
	const int rows = 4;
	double *a = malloc((size_t)(rows + 2) * cols * sizeof *a);
	for (long i = 0; i < (long)(rows + 2) * cols; i++)
		a[i] = rank + i % 7;
	int up = (rank + 1) % size, down = (rank + size - 1) % size;
	for (int it = 0; it < 6; it++) {
		MPI_Request r[4];
		MPI_Irecv(a, cols, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &r[0]);
		MPI_Irecv(a + (long)(rows + 1) * cols, cols, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &r[1]);
		MPI_Isend(a + cols, cols, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &r[2]);
		MPI_Isend(a + (long)rows * cols, cols, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &r[3]);
		for (long i = 2L * cols; i < (long)(rows - 1) * cols; i++) /* the interior, meanwhile */
			a[i] = a[i] * 0.5 + 1;
		MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
		for (long i = 0; i < cols; i++) /* the ghost rows flow into the boundary rows */
			a[cols + i] += a[i] * 0.25, a[(long)rows * cols + i] += a[(long)(rows + 1) * cols + i] * 0.25;
	}
	double s = 0;
	for (long i = 0; i < (long)(rows + 2) * cols; i++)
		s += a[i] * (i % 13);
	free(a);
	return s;
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	static const int cols[] = {512, 16384, 262144}; /* 4 KiB, 128 KiB, 2 MiB rows */
	for (int k = 0; k < 3; k++) {
		double s = exchange(cols[k], rank, size), all[64];
		MPI_Gather(&s, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
		if (rank == 0) {
			printf("rows of %d bytes:", cols[k] * 8);
			for (int i = 0; i < size; i++)
				printf(" %.6e", all[i]);
			printf("\n");
		}
	}
	if (rank == 0)
		fprintf(stderr, "halo done on %d ranks\n", size);
	MPI_Finalize();
	return 0;
}
