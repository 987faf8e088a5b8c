/* Epochs of different kinds opened inside one another on one window (2
 * ranks), each case on a window of its own so that one does not disturb the
 * next, with MPI_ERRORS_RETURN so that the program goes on: MPI_Win_lock
 * inside an MPI_Win_lock_all epoch, MPI_Win_lock_all inside a lock,
 * MPI_Win_fence inside a lock, MPI_Win_lock_all inside an active fence
 * epoch (a Put followed the fence). mpivet finds each at its call, before
 * the MPI acts on it. The MPIs refuse some (mpi-error); Open MPI takes the
 * lock inside MPI_Win_lock_all, and then refuses its MPI_Win_unlock_all.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

static MPI_Win window(int *buf)
{
	MPI_Win win;
	MPI_Win_create(buf, 4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
	return win;
}

int main(int argc, char **argv)
{
	int rank, buf[4][4] = {{0}}, v = 1;
	MPI_Win w[4];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int i = 0; i < 4; i++)
		w[i] = window(buf[i]);
	int peer = 1 - rank;

	MPI_Win_lock_all(0, w[0]);
	if (MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w[0]) == MPI_SUCCESS) // want "rma-epoch" want(mpich) "mpi-error"
		MPI_Win_unlock(peer, w[0]);
	MPI_Win_unlock_all(w[0]); // want(openmpi) "mpi-error"

	MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w[1]);
	if (MPI_Win_lock_all(0, w[1]) == MPI_SUCCESS) // want "rma-epoch" want(mpich) "mpi-error"
		MPI_Win_unlock_all(w[1]);
	MPI_Win_unlock(peer, w[1]);

	MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w[2]);
	MPI_Win_fence(0, w[2]); // want "rma-epoch" "mpi-error"
	MPI_Win_unlock(peer, w[2]);

	MPI_Win_fence(0, w[3]);
	MPI_Put(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, w[3]);
	if (MPI_Win_lock_all(0, w[3]) == MPI_SUCCESS) // want "rma-epoch" "mpi-error"
		MPI_Win_unlock_all(w[3]);
	MPI_Win_fence(0, w[3]);

	MPI_Barrier(MPI_COMM_WORLD);
	for (int i = 0; i < 4; i++)
		MPI_Win_free(&w[i]);
	MPI_Finalize();
	return 0;
}
