/* Many one-sided operations: each rank makes N operations (Get, Put and
 * Accumulate in turn) on its right neighbour's window, 100 per epoch, in
 * fence epochs or in shared-lock epochs. Correct: each rank's Puts and
 * Gets touch elements of the target that no other origin touches, each Put
 * of an epoch its own element (two Puts of one element in one epoch are
 * unordered, even from one origin), the accumulates all add doubles, and
 * every Get has its own origin element in its epoch. The records of such a run would grow with N; mpivet must
 * keep them and its time within their limits (--max-records, --timeout).
 * Usage: rma_ops [N [fence|lock]]   (default 100000 fence)
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

enum { PER_EPOCH = 100 };

static void op(int j, double *get, double *x, int rank, int t, MPI_Win win)
{
	int k = j % 3;
	if (k == 0)
		MPI_Get(get, 1, MPI_DOUBLE, t, 8 + rank, 1, MPI_DOUBLE, win);
	else if (k == 1)
		MPI_Put(x, 1, MPI_DOUBLE, t, 64 + rank * PER_EPOCH + j, 1, MPI_DOUBLE, win);
	else
		MPI_Accumulate(x, 1, MPI_DOUBLE, t, 32, 1, MPI_DOUBLE, MPI_SUM, win);
}

int main(int argc, char **argv)
{
	int rank, size, n = argc > 1 ? atoi(argv[1]) : 100000;
	int lock = argc > 2 && strcmp(argv[2], "lock") == 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	double *base, x = rank, got[PER_EPOCH];
	MPI_Win win;
	int len = 64 + size * PER_EPOCH;
	MPI_Win_allocate(len * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	for (int i = 0; i < len; i++)
		base[i] = rank;
	int t = (rank + 1) % size;
	if (!lock)
		MPI_Win_fence(0, win);
	for (int i = 0; i < n; i += PER_EPOCH) {
		if (lock)
			MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
		for (int j = 0; j < PER_EPOCH && i + j < n; j++)
			op(j, &got[j], &x, rank, t, win);
		if (lock)
			MPI_Win_unlock(t, win);
		else
			MPI_Win_fence(0, win);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
