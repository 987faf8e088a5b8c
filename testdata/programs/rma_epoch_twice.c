/* Epochs opened twice, and calls without their epoch (2 ranks), each case
 * on a window of its own, with MPI_ERRORS_RETURN so that the program goes
 * on: rank 0 takes a shared lock of rank 1 it already holds (MPI 4.0
 * §12.5.3: one access epoch per target; Open MPI grants it, MPICH refuses),
 * opens MPI_Win_lock_all twice, calls MPI_Win_test without a post and
 * MPI_Win_flush_local, MPI_Win_flush_local_all outside a passive-target
 * epoch; rank 0 starts twice and rank 1 posts twice to the other; both take
 * a lock inside an active fence epoch. mpivet finds each at its call; the
 * MPIs refuse all but Open MPI's second shared lock (mpi-error).
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
	int rank, buf[5][4] = {{0}}, v = 1, flag = 0;
	MPI_Win w[5];
	MPI_Group world, peers;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int i = 0; i < 5; i++)
		w[i] = window(buf[i]);
	int peer = 1 - rank;
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_incl(world, 1, &peer, &peers);
	if (rank == 0) {
		MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w[0]);
		MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w[0]); // want "rma-epoch" want(mpich) "mpi-error"
		MPI_Win_unlock(1, w[0]);
		MPI_Win_lock_all(0, w[1]);
		MPI_Win_lock_all(0, w[1]); // want "rma-epoch" "mpi-error"
		MPI_Win_unlock_all(w[1]);
		MPI_Win_test(w[2], &flag); // want "rma-epoch" "mpi-error"
		MPI_Win_flush_local(1, w[2]); // want "rma-epoch" "mpi-error"
		MPI_Win_flush_local_all(w[2]); // want "rma-epoch" "mpi-error"
	}
	if (rank == 0) {
		MPI_Win_start(peers, 0, w[3]);
		MPI_Win_start(peers, 0, w[3]); // want "rma-epoch" "mpi-error"
		MPI_Win_complete(w[3]);
	} else {
		MPI_Win_post(peers, 0, w[3]);
		MPI_Win_post(peers, 0, w[3]); // want "rma-epoch" "mpi-error"
		MPI_Win_wait(w[3]);
	}
	MPI_Win_fence(0, w[4]);
	MPI_Put(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, w[4]);
	MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w[4]); // want "rma-epoch" "mpi-error"
	MPI_Win_fence(0, w[4]);
	for (int i = 0; i < 5; i++)
		MPI_Win_free(&w[i]);
	MPI_Group_free(&peers);
	MPI_Group_free(&world);
	MPI_Finalize();
	return 0;
}
