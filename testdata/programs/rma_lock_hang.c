/* A hang caused by an epoch left open (2 ranks): rank 0 opens a shared
 * epoch on every rank with MPI_Win_lock_all, writes to itself and flushes
 * (the lock is taken), tells rank 1, and waits in a barrier before closing
 * the epoch; rank 1 wants an exclusive lock on rank 0, which it can only
 * get once rank 0's shared lock is released. mpivet reports the deadlock,
 * and names the epoch that causes it.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, go = 1;
	long buf[4] = {0}, v = 1;
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_create(buf, sizeof buf, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	if (rank == 1) {
		MPI_Recv(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win); // want "deadlock"
		MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
		MPI_Win_unlock(0, win);
	} else {
		MPI_Win_lock_all(0, win); // want "rma-epoch"
		MPI_Put(&v, 1, MPI_LONG, 0, 1, 1, MPI_LONG, win);
		MPI_Win_flush_all(win);
		MPI_Send(&go, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD); // want "deadlock"
	if (rank == 0)
		MPI_Win_unlock_all(win);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
