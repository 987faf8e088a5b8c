/* Hybrid halo-exchange proxy (MPI + OpenMP): the Jacobi sweep of halo.c on
 * an N x N block per rank, ranks in a ring, the sweep's rows shared among
 * the OpenMP threads (OMP_NUM_THREADS) by `#pragma omp parallel for`, and an
 * Allreduce of the residual every 10 iterations.
 *   funneled (default): MPI_THREAD_FUNNELED; the master thread alone
 *     exchanges the halo rows (Irecv/Isend/Waitall) between the sweeps.
 *   multiple: MPI_THREAD_MULTIPLE; inside the parallel region each thread
 *     exchanges its own part of the halo rows (its columns) with its own
 *     tags, then the threads sweep; the master reduces.
 * Usage: halo_omp [N] [iterations] [funneled|multiple].
 * Prints: RESULT iter_us=<time per iteration> cpu_iter_us=<CPU time of all
 * ranks' threads per iteration> threads=<T> residual=<r>
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* cpu is the CPU time of the process, all its threads, in seconds. */
static double cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* sweep updates the rows 1..n of v from u, shared among the threads of
 * the enclosing parallel region (or of its own), and returns the squared
 * change of the calling thread's rows. */
static double sweep(const double *u, double *v, int n)
{
	double local = 0;
#pragma omp for schedule(static)
	for (int i = 1; i <= n; i++)
		for (int j = 1; j < n - 1; j++) {
			size_t k = (size_t)i * n + j;
			v[k] = 0.25 * (u[k - n] + u[k + n] + u[k - 1] + u[k + 1]);
			local += (v[k] - u[k]) * (v[k] - u[k]);
		}
	return local;
}

/* exchange sends the columns c0..c1-1 of the two boundary rows of u to the
 * ring neighbours and receives theirs into the halo rows, with tags 2t and
 * 2t+1, and waits for the four operations. */
static void exchange(double *u, int n, int c0, int c1, int up, int down, int t)
{
	MPI_Request r[4];
	int len = c1 - c0;
	MPI_Irecv(&u[c0], len, MPI_DOUBLE, up, 2 * t, MPI_COMM_WORLD, &r[0]);
	MPI_Irecv(&u[(size_t)(n + 1) * n + c0], len, MPI_DOUBLE, down, 2 * t + 1, MPI_COMM_WORLD, &r[1]);
	MPI_Isend(&u[(size_t)n * n + c0], len, MPI_DOUBLE, down, 2 * t, MPI_COMM_WORLD, &r[2]);
	MPI_Isend(&u[n + c0], len, MPI_DOUBLE, up, 2 * t + 1, MPI_COMM_WORLD, &r[3]);
	MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
	int rank, size, provided, n = argc > 1 ? atoi(argv[1]) : 256, iters = argc > 2 ? atoi(argv[2]) : 400;
	int multiple = argc > 3 && strcmp(argv[3], "multiple") == 0;
	MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED, &provided);
	if (provided < (multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED)) {
		fprintf(stderr, "halo_omp: the MPI gives thread level %d only\n", provided);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int up = (rank + size - 1) % size, down = (rank + 1) % size;
	double *u = calloc((size_t)(n + 2) * n, sizeof *u), *v = calloc((size_t)(n + 2) * n, sizeof *v);
	for (int i = 0; i < (n + 2) * n; i++)
		u[i] = (rank * 31 + i) % 17;
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime(), c0 = cpu(), res = 0;
	for (int it = 0; it < iters; it++) {
		double local = 0;
		if (!multiple)
			exchange(u, n, 0, n, up, down, 0);
#pragma omp parallel reduction(+ : local)
		{
			if (multiple) {
				int t = omp_get_thread_num(), nt = omp_get_num_threads();
				exchange(u, n, n * t / nt, n * (t + 1) / nt, up, down, t);
#pragma omp barrier
			}
			local += sweep(u, v, n);
		}
		double *t = u;
		u = v, v = t;
		if (it % 10 == 0)
			MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	double t = MPI_Wtime() - t0, c = cpu() - c0, call;
	MPI_Reduce(&c, &call, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("RESULT iter_us=%.3f cpu_iter_us=%.3f threads=%d residual=%g\n", t / iters * 1e6, call / iters * 1e6,
		       omp_get_max_threads(), res);
	free(u);
	free(v);
	MPI_Finalize();
	return 0;
}
