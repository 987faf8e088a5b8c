/* Races in passive-target epochs (3 ranks): ranks 1 and 2 both hold shared
 * locks (MPI_Win_lock_all) and put to the same long of rank 0 with nothing
 * between them; then rank 1 puts to another long and flushes, but rank 2
 * reads it without waiting for a synchronisation after that flush. Not
 * races: the same longs written under exclusive locks, and a put flushed
 * before a barrier that precedes the other rank's put.
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank;
	long buf[8] = {0}, v = 1, got = 0;
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_create(buf, sizeof buf, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_lock_all(0, win);
	if (rank > 0)
		MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win); // want "rma-race"
	if (rank == 1) {
		MPI_Put(&v, 1, MPI_LONG, 0, 1, 1, MPI_LONG, win); // want "rma-race"
		MPI_Win_flush(0, win);
	}
	if (rank == 2)
		MPI_Get(&got, 1, MPI_LONG, 0, 1, 1, MPI_LONG, win); // want "rma-race"
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);

	/* exclusive locks serialise the epochs */
	if (rank > 0) {
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
		MPI_Put(&v, 1, MPI_LONG, 0, 2, 1, MPI_LONG, win);
		MPI_Win_unlock(0, win);
	}
	MPI_Barrier(MPI_COMM_WORLD); /* rank 0's MPI_Win_lock_all would hold the exclusive locks off */
	/* flushed, then a barrier, then the other rank's put */
	MPI_Win_lock_all(0, win);
	if (rank == 1) {
		MPI_Put(&v, 1, MPI_LONG, 0, 3, 1, MPI_LONG, win);
		MPI_Win_flush(0, win);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 2)
		MPI_Put(&v, 1, MPI_LONG, 0, 3, 1, MPI_LONG, win);
	MPI_Win_unlock_all(win);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
