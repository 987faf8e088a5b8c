/* One-sided halo-exchange proxy: the 2-D Jacobi sweep of halo.c (an N x N
 * block per rank, ranks in a ring), with the halo rows written into the
 * neighbours' windows by MPI_Put instead of sent: "fence" synchronises each
 * iteration with MPI_Win_fence (active target), "lock" with
 * MPI_Win_lock_all, MPI_Win_flush_all and a barrier (passive target). An
 * Allreduce of the residual every 10 iterations.
 * Usage: rma_stencil [N] [iterations] [fence|lock]. Prints: RESULT iter_us=<time per
 * iteration> cpu_iter_us=<this rank's CPU time (CLOCK_PROCESS_CPUTIME_ID) per iteration>
 * (rank 0's; with one rank, which puts to itself, the CPU the layer adds to the loop).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double sweep(const double *u, double *v, int n)
{
	double local = 0;
	for (int i = 1; i <= n; i++)
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
	int lock = argc > 3 && strcmp(argv[3], "lock") == 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int up = (rank + size - 1) % size, down = (rank + 1) % size;
	size_t cells = (size_t)(n + 2) * n;
	/* two buffers, each exposed by its own window: iteration k reads one and writes the other */
	double *buf[2];
	MPI_Win win[2];
	for (int b = 0; b < 2; b++) {
		MPI_Win_allocate((MPI_Aint)(cells * sizeof(double)), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &buf[b], &win[b]);
		for (size_t i = 0; i < cells; i++)
			buf[b][i] = (rank * 31 + i) % 17;
	}
	if (lock)
		for (int b = 0; b < 2; b++)
			MPI_Win_lock_all(MPI_MODE_NOCHECK, win[b]);
	MPI_Barrier(MPI_COMM_WORLD);
	struct timespec c0, c1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	double t0 = MPI_Wtime(), res = 0;
	for (int it = 0; it < iters; it++) {
		int c = it % 2;
		double *u = buf[c], *v = buf[1 - c];
		/* my first row goes to the bottom halo of up, my last row to the top halo of down */
		if (!lock)
			MPI_Win_fence(0, win[c]);
		MPI_Put(&u[n], n, MPI_DOUBLE, up, (MPI_Aint)(n + 1) * n, n, MPI_DOUBLE, win[c]);
		MPI_Put(&u[(size_t)n * n], n, MPI_DOUBLE, down, 0, n, MPI_DOUBLE, win[c]);
		if (lock) {
			MPI_Win_flush_all(win[c]);
			MPI_Barrier(MPI_COMM_WORLD);
		} else {
			MPI_Win_fence(0, win[c]);
		}
		double local = sweep(u, v, n);
		if (it % 10 == 0)
			MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	double t = MPI_Wtime() - t0;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	double cpu = (c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) * 1e-9;
	if (lock)
		for (int b = 0; b < 2; b++)
			MPI_Win_unlock_all(win[b]);
	for (int b = 0; b < 2; b++)
		MPI_Win_free(&win[b]);
	if (rank == 0)
		printf("RESULT iter_us=%.3f cpu_iter_us=%.3f\n", t / iters * 1e6, cpu / iters * 1e6);
	MPI_Finalize();
	return 0;
}
