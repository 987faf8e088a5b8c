/* MPI_Win_lock of a target the rank already holds an exclusive lock on (2
 * ranks), with the window's default error handler. Open MPI blocks in the
 * second lock for ever: the rank waits for itself, a deadlock found as
 * soon as the other rank blocks in the barrier, not at the time limit.
 * MPICH ends the job in the call (MPI_ERR_RMA_SYNC). Either way the epoch
 * error is reported at the call.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, buf[4] = {0}, v = 1;
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	if (rank == 0) {
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
		MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win); // want "rma-epoch" want(openmpi) "deadlock" want(mpich) "program-failure"
		MPI_Win_unlock(1, win);
	}
	MPI_Barrier(MPI_COMM_WORLD); // want(openmpi) "deadlock"
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
