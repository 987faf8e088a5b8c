/* Correct epochs of every kind on one window, one after another (2 ranks),
 * values checked: a fence epoch opened with MPI_MODE_NOPRECEDE and closed
 * with MPI_MODE_NOSUCCEED, then an MPI_Win_lock_all epoch with a flush
 * between a Put and a Get of the same bytes, a fence epoch closed by a
 * plain fence and followed, no operation between, by MPI_Win_lock_all,
 * nested locks of two different targets, and a PSCW epoch (post, start,
 * complete, wait), with assertions each call defines. The twin of
 * rma_epoch_mixed.c, rma_epoch_fatal.c and rma_window_args.c.
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>

static void expect(int ok, int rank, const char *what)
{
	if (!ok) {
		fprintf(stderr, "rank %d: wrong %s\n", rank, what);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

int main(int argc, char **argv)
{
	int rank, buf[8] = {0}, v, got = -1;
	MPI_Win win;
	MPI_Group world, peers;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int peer = 1 - rank;
	v = 10 + rank;
	MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

	MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
	MPI_Put(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win);
	MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
	expect(buf[0] == 10 + peer, rank, "fence Put");

	MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
	MPI_Put(&v, 1, MPI_INT, peer, 1, 1, MPI_INT, win);
	MPI_Win_flush(peer, win);
	MPI_Get(&got, 1, MPI_INT, peer, 1, 1, MPI_INT, win);
	MPI_Win_unlock_all(win);
	expect(got == v, rank, "Get after flush");

	MPI_Win_fence(0, win);
	MPI_Put(&v, 1, MPI_INT, peer, 2, 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	MPI_Win_lock_all(0, win);
	MPI_Get(&got, 1, MPI_INT, peer, 2, 1, MPI_INT, win);
	MPI_Win_unlock_all(win);
	expect(got == v, rank, "Get after a closing fence");
	MPI_Barrier(MPI_COMM_WORLD);

	MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win);
	MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
	MPI_Put(&v, 1, MPI_INT, peer, 3, 1, MPI_INT, win);
	MPI_Get(&got, 1, MPI_INT, rank, 0, 1, MPI_INT, win);
	MPI_Win_unlock(rank, win);
	MPI_Win_unlock(peer, win);
	expect(got == 10 + peer, rank, "Get under nested locks");
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
	expect(buf[3] == 10 + peer, rank, "Put under nested locks");
	MPI_Win_unlock(rank, win);
	MPI_Barrier(MPI_COMM_WORLD);

	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_incl(world, 1, &peer, &peers);
	MPI_Win_post(peers, MPI_MODE_NOSTORE, win);
	MPI_Win_start(peers, 0, win);
	MPI_Put(&v, 1, MPI_INT, peer, 4, 1, MPI_INT, win);
	MPI_Win_complete(win);
	MPI_Win_wait(win);
	expect(buf[4] == 10 + peer, rank, "PSCW Put");

	MPI_Group_free(&peers);
	MPI_Group_free(&world);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
