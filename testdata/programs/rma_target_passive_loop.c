/* A one-sided halo exchange in a loop with passive-target epochs (2 ranks,
 * two windows of MPI_Win_allocate, MPI_Win_lock_all for the whole loop):
 * each iteration puts a rank's edge rows into its neighbour's ghost rows and
 * flushes them, but no barrier follows the flush, so the neighbour's sweep
 * reads its ghost rows while the Put may still be writing them. The race is
 * the same in every iteration: found in the first, though the page is then
 * left alone. The twin is clean_rma_target_passive_loop.c.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>

#define N 16

static double sweep(const double *u, double *v)
{
	double s = 0;
	for (int i = 1; i <= N; i++)
		for (int j = 0; j < N; j++) {
			double up = u[(i - 1) * N + j]; // want "rma-race"
			v[i * N + j] = 0.5 * (up + u[(i + 1) * N + j]);
			s += v[i * N + j];
		}
	return s;
}

int main(int argc, char **argv)
{
	int rank;
	double *buf[2], s = 0;
	MPI_Win win[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int peer = 1 - rank;
	for (int b = 0; b < 2; b++) {
		MPI_Win_allocate((N + 2) * N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &buf[b], &win[b]);
		for (int i = 0; i < (N + 2) * N; i++)
			buf[b][i] = rank + i;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	for (int b = 0; b < 2; b++)
		MPI_Win_lock_all(0, win[b]);
	for (int it = 0; it < 20; it++) {
		int c = it % 2;
		double *u = buf[c], *v = buf[1 - c];
		MPI_Put(&u[N * N], N, MPI_DOUBLE, peer, 0, N, MPI_DOUBLE, win[c]); // want "rma-race"
		MPI_Put(&u[N], N, MPI_DOUBLE, peer, (N + 1) * N, N, MPI_DOUBLE, win[c]);
		MPI_Win_flush_all(win[c]);
		s += sweep(u, v);
	}
	for (int b = 0; b < 2; b++)
		MPI_Win_unlock_all(win[b]);
	MPI_Barrier(MPI_COMM_WORLD);
	for (int b = 0; b < 2; b++)
		MPI_Win_free(&win[b]);
	printf("%d\n", s > 0);
	MPI_Finalize();
	return 0;
}
