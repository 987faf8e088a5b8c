/* The correct twin of rma_omp_workers.c: rank 0's OpenMP workers read the
 * MPI_Get's origin buffer only after the fence that completes it, and rank
 * 1's workers store into their window only after the epoch in which rank 0
 * puts into it has closed (and before the next opens, in an epoch with no
 * operation on those bytes).
 * mpivet: np=2 verdict=ok
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
	if (rank == 0)
		MPI_Get(got, N, MPI_DOUBLE, 1, 0, N, MPI_DOUBLE, win);
	MPI_Win_fence(0, win);
	if (rank == 0) {
#pragma omp parallel for reduction(+ : s)
		for (int i = 0; i < N; i++)
			s += got[i];
		MPI_Put(got, N, MPI_DOUBLE, 1, 0, N, MPI_DOUBLE, win);
	}
	MPI_Win_fence(0, win);
	if (rank == 1) {
#pragma omp parallel for
		for (int i = 0; i < N; i++)
			base[i] = 2.0 * i;
	}
	MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
	printf("rank %d: %g %g\n", rank, s, base[1]);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
