/* Invalid arguments of window calls (2 ranks), with MPI_ERRORS_RETURN so
 * that the program goes on: MPI_Win_create with a NULL base for 64 bytes
 * (the window is freed unused), and assertions of bits a call does not
 * define (MPI 4.0 §12.5.5): MPI_MODE_NOCHECK to MPI_Win_fence,
 * MPI_MODE_NOPRECEDE to MPI_Win_post and MPI_Win_lock_all,
 * MPI_MODE_NOPUT to MPI_Win_start, MPI_MODE_NOSTORE to MPI_Win_lock.
 * The layer reports each before the MPI sees it (invalid-argument); both
 * MPIs refuse the assertions (Open MPI: MPI_ERR_ASSERT, MPICH:
 * MPI_ERR_ARG), MPICH the NULL base too, which Open MPI takes.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv)
{
	int rank, buf[4] = {0};
	MPI_Win w0, win;
	MPI_Group world, peers;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	int peer = 1 - rank;
	if (MPI_Win_create(NULL, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w0) == MPI_SUCCESS) // want "invalid-argument" want(mpich) "mpi-error"
		MPI_Win_free(&w0);
	MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
	MPI_Win_fence(MPI_MODE_NOCHECK, win); // want "invalid-argument" "mpi-error"
	MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_incl(world, 1, &peer, &peers);
	int posted = MPI_Win_post(peers, MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS; // want "invalid-argument" "mpi-error"
	if (MPI_Win_start(peers, MPI_MODE_NOPUT, win) == MPI_SUCCESS) // want "invalid-argument" "mpi-error"
		MPI_Win_complete(win);
	if (posted)
		MPI_Win_wait(win);
	if (MPI_Win_lock(MPI_LOCK_SHARED, peer, MPI_MODE_NOSTORE, win) == MPI_SUCCESS) // want "invalid-argument" "mpi-error"
		MPI_Win_unlock(peer, win);
	if (MPI_Win_lock_all(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS) // want "invalid-argument" "mpi-error"
		MPI_Win_unlock_all(win);
	MPI_Group_free(&peers);
	MPI_Group_free(&world);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
