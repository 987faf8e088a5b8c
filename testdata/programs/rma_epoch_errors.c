/* One-sided calls outside their epochs (2 ranks), with MPI_ERRORS_RETURN
 * on the window so that the program goes on after each: a put before any
 * fence, an unlock without lock, a flush outside a passive-target epoch,
 * MPI_Win_unlock_all without MPI_Win_lock_all, MPI_Win_complete without
 * MPI_Win_start and MPI_Win_wait without MPI_Win_post. The MPIs notice some
 * of them (mpi-error: Open MPI not the complete without start), mpivet
 * each.
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
	MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
	int peer = 1 - rank;
	MPI_Put(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win); // want "rma-epoch" "mpi-error"
	MPI_Win_unlock(peer, win); // want "rma-epoch" "mpi-error"
	MPI_Win_flush(peer, win); // want "rma-epoch" "mpi-error"
	MPI_Win_unlock_all(win); // want "rma-epoch" "mpi-error"
	MPI_Win_complete(win); // want "rma-epoch" want(mpich) "mpi-error"
	MPI_Win_wait(win); // want "rma-epoch" "mpi-error"
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
