/* The target stores into its own window during a fence epoch, into the
 * bytes a remote MPI_Put writes in that epoch: a race (MPI 4.0 §12.7),
 * whose outcome depends on which lands last. Rank 0 puts 4 ints at the
 * start of rank 1's window right after the opening fence; the ranks then
 * reduce a residual (MPI_Allreduce, which does not complete the Put), and
 * rank 1 stores into the second of the Put's ints before the closing fence.
 * mpivet finds it by value: at the closing fence rank 1's bytes are not
 * the Put's. Rank 2 puts into other bytes of rank 1's window, which rank 1
 * does not touch, and rank 1 stores into bytes nobody puts to: neither is a
 * finding. Once with a window from MPI_Win_allocate, once from
 * MPI_Win_create.
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>

static void epoch(int rank, int *base, MPI_Win win)
{
	int data[4] = {1, 2, 3, 4}, other[2] = {7, 8};
	double r = rank, sum;
	for (int i = 0; i < 16; i++)
		base[i] = 0;
	MPI_Win_fence(0, win);
	if (rank == 0)
		MPI_Put(data, 4, MPI_INT, 1, 0, 4, MPI_INT, win); // want "rma-race"
	if (rank == 2)
		MPI_Put(other, 2, MPI_INT, 1, 8, 2, MPI_INT, win);
	MPI_Allreduce(&r, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 1) {
		base[1] = -1; /* the race: a store into the Put's bytes */
		base[12] = 5; /* bytes nobody puts to: fine */
	}
	MPI_Win_fence(0, win);
	MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
}

int main(int argc, char **argv)
{
	int rank, *base, buf[16];
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	epoch(rank, base, win);
	MPI_Win_free(&win);
	MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	epoch(rank, buf, win);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
