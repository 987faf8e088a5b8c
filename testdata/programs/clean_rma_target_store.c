/* The correct twin of rma_target_store_fence.c: the target stores into the
 * bytes a remote MPI_Put writes only outside the Put's epoch (before the
 * fence that opens it, and after the one that closes it), and into other
 * bytes of its window during it; the Put's values are checked. Windows from
 * MPI_Win_allocate and MPI_Win_create, with a derived datatype Put (not
 * compared by value) beside.
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

static void epochs(int rank, int *base, MPI_Win win)
{
	int data[4] = {1, 2, 3, 4};
	base[1] = -1; /* before the epoch: the Put overwrites it */
	MPI_Win_fence(0, win);
	if (rank == 0)
		MPI_Put(data, 4, MPI_INT, 1, 0, 4, MPI_INT, win);
	if (rank == 1) {
		usleep(100000);
		base[12] = 5; /* other bytes */
	}
	MPI_Win_fence(0, win);
	if (rank == 1 && (base[0] != 1 || base[1] != 2 || base[3] != 4 || base[12] != 5)) {
		fprintf(stderr, "wrong values\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (rank == 1)
		base[1] = 9; /* after the epoch */
	MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
}

int main(int argc, char **argv)
{
	int rank, *base, buf[16] = {0};
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	for (int i = 0; i < 16; i++)
		base[i] = 0;
	epochs(rank, base, win);
	MPI_Win_free(&win);
	MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	epochs(rank, buf, win);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
