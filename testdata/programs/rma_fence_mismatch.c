/* The members of a window call MPI_Win_fence a different number of times
 * (2 ranks): rank 0 fences once more than rank 1, and the run hangs in
 * MPI_Win_free (deadlock); the finding says why.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, buf[4] = {0}, v = 1;
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win); // want "rma-epoch"
	MPI_Win_fence(0, win);
	MPI_Put(&v, 1, MPI_INT, 1 - rank, rank, 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	if (rank == 0)
		MPI_Win_fence(0, win);
	MPI_Win_free(&win); // want "deadlock"
	MPI_Finalize();
	return 0;
}
