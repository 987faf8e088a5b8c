/* Halo-exchange proxy: a 2-D Jacobi sweep on an N x N block per rank, ranks
 * in a ring exchanging one row each way per iteration with Irecv/Isend/
 * Waitall, and an Allreduce of the residual every 10 iterations, like the
 * communication skeleton of a structured-grid code.
 * With "overlap" as third argument, the rows that do not touch the halo are
 * updated while the exchange is in flight (in the same array, so some of the
 * pages hold pending buffers), the two boundary rows after the Waitall.
 * Usage: halo [N] [iterations] [overlap]. Prints: RESULT iter_us=<time per iteration>
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sweep updates rows lo..hi of v from u and returns the squared change. */
static double sweep(const double *u, double *v, int n, int lo, int hi)
{
	double local = 0;
	for (int i = lo; i <= hi; i++)
		for (int j = 1; j < n - 1; j++) {
			size_t k = (size_t)i * n + j;
			v[k] = 0.25 * (u[k - n] + u[k + n] + u[k - 1] + u[k + 1]);
			local += (v[k] - u[k]) * (v[k] - u[k]);
		}
	return local;
}

int main(int argc, char **argv)
{
	int rank, size, n = argc > 1 ? atoi(argv[1]) : 256, iters = argc > 2 ? atoi(argv[2]) : 400;
	int overlap = argc > 3 && strcmp(argv[3], "overlap") == 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int up = (rank + size - 1) % size, down = (rank + 1) % size;
	double *u = calloc((size_t)(n + 2) * n, sizeof *u), *v = calloc((size_t)(n + 2) * n, sizeof *v);
	for (int i = 0; i < (n + 2) * n; i++)
		u[i] = (rank * 31 + i) % 17;
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime(), res = 0;
	for (int it = 0; it < iters; it++) {
		MPI_Request r[4];
		MPI_Irecv(&u[0], n, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &r[0]);
		MPI_Irecv(&u[(size_t)(n + 1) * n], n, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &r[1]);
		MPI_Isend(&u[(size_t)n * n], n, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &r[2]);
		MPI_Isend(&u[n], n, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &r[3]);
		double local = 0;
		if (overlap)
			local += sweep(u, v, n, 2, n - 1);
		MPI_Waitall(4, r, MPI_STATUSES_IGNORE); /* statuses ignored */
		if (overlap) {
			local += sweep(u, v, n, 1, 1);
			local += sweep(u, v, n, n, n);
		} else {
			local += sweep(u, v, n, 1, n);
		}
		double *t = u;
		u = v, v = t;
		if (it % 10 == 0)
			MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	double t = MPI_Wtime() - t0;
	if (rank == 0)
		printf("RESULT iter_us=%.3f residual=%g\n", t / iters * 1e6, res);
	free(u);
	free(v);
	MPI_Finalize();
	return 0;
}
