/* The target reads its own ghost cells during the fence epoch in which a
 * neighbour's MPI_Put writes them: the classic halo bug, reading the ghost
 * row before the closing fence (MPI 4.0 §12.7: the Put completes at the
 * target only when the epoch closes, so the value read is the old row, the
 * new one, or a mix). A ring of ranks, each a block of N x N doubles with a
 * ghost row above and below, in a window from MPI_Win_allocate: every rank
 * puts its first row into the bottom ghost row of the rank above and its
 * last row into the top ghost row of the rank below, then, in the second
 * iteration, reads its top ghost row before the closing fence. mpivet
 * protects the window's pages in the target during the epoch and records
 * its first load of each page. Then the same with a window from
 * MPI_Win_create, which Open MPI's Put writes with the origin's
 * process_vm_writev (a protected page would make it fail): not watched
 * there (the finding is the same line).
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>
#include <stdlib.h>

#define N 64

static double run(double *u, MPI_Win win, int rank, int size)
{
	int up = (rank + size - 1) % size, down = (rank + 1) % size;
	double early = 0;
	for (size_t i = 0; i < (size_t)(N + 2) * N; i++)
		u[i] = rank;
	for (int it = 0; it < 3; it++) {
		MPI_Win_fence(0, win);
		MPI_Put(&u[N], N, MPI_DOUBLE, up, (MPI_Aint)(N + 1) * N, N, MPI_DOUBLE, win);
		MPI_Put(&u[(size_t)N * N], N, MPI_DOUBLE, down, 0, N, MPI_DOUBLE, win);
		if (it == 1)
			early += u[3]; /* the ghost row, before the closing fence */ // want "rma-race"
		MPI_Win_fence(0, win);
		for (int j = 0; j < N; j++)
			u[N + j] = 0.5 * (u[j] + u[2 * N + j]);
	}
	return early;
}

int main(int argc, char **argv)
{
	int rank, size;
	double *u, *mem, sum = 0;
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Win_allocate((MPI_Aint)(N + 2) * N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &u, &win);
	sum += run(u, win, rank, size);
	MPI_Win_free(&win);
	if (posix_memalign((void **)&mem, 4096, (N + 2) * N * sizeof(double)) != 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Win_create(mem, (MPI_Aint)(N + 2) * N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	sum += run(mem, win, rank, size);
	MPI_Win_free(&win);
	free(mem);
	MPI_Finalize();
	return sum < 0;
}
