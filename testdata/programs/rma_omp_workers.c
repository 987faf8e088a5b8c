/* OpenMP workers touching memory that a one-sided operation still owns.
 * Rank 0's workers read the origin buffer of an MPI_Get before the fence
 * that completes it (what they read may be the old bytes or the new), and
 * rank 1's workers store into their own window during a fence epoch in
 * which rank 0 puts into the same bytes. Every thread of a rank is
 * watched, not only the one that calls MPI: both are found, at the
 * workers' lines, with the thread named.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define N 2048

static double got[N] __attribute__((aligned(4096)));

int main(int argc, char **argv)
{
	int rank, provided;
	double *base, s = 0;
	MPI_Win win;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	omp_set_num_threads(2);
	MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	for (int i = 0; i < N; i++)
		base[i] = rank, got[i] = 0;
	MPI_Win_fence(0, win);
	if (rank == 0) {
		MPI_Get(got, N, MPI_DOUBLE, 1, 0, N, MPI_DOUBLE, win);
#pragma omp parallel for reduction(+ : s)
		for (int i = 0; i < N; i++)
			s += got[i]; // want "buffer-reuse"
	}
	MPI_Win_fence(0, win);
	if (rank == 0)
		MPI_Put(got, N, MPI_DOUBLE, 1, 0, N, MPI_DOUBLE, win); // want "rma-race"
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
#pragma omp parallel for
		for (int i = 0; i < N; i++)
			base[i] = 2.0 * i; // want "rma-race"
	}
	MPI_Win_fence(0, win);
	printf("rank %d: %g %g\n", rank, s, base[1]);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
