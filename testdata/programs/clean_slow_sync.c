/* Slow ranks are no deadlock (3 ranks): each synchronisation below has a
 * rank computing for 1.5 s (a busy loop; a stall is judged after 1 s) while
 * the others wait in it, with no MPI call completing meanwhile: a barrier, a fence, an exclusive lock
 * held while its holder computes (another rank waits in MPI_Win_lock), a
 * PSCW epoch whose origin computes before MPI_Win_complete (the target
 * waits in MPI_Win_wait), and a rank polling with MPI_Iprobe for a message
 * that comes after 1.5 s. Nothing to report; the output must be a native
 * run's.
 * mpivet: np=3 timeout=120s verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>

static volatile double sink;

static void compute(double seconds)
{
	double end = MPI_Wtime() + seconds;
	while (MPI_Wtime() < end)
		for (int i = 0; i < 1000; i++)
			sink += i * 0.5;
}

int main(int argc, char **argv)
{
	int rank, size, buf[4] = {0}, v, got = -1, flag = 0, peer;
	MPI_Win win;
	MPI_Group world, other;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	v = rank + 1;
	if (rank == 2)
		compute(1.5);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_fence(0, win);
	MPI_Put(&v, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
	if (rank == 1)
		compute(1.5);
	MPI_Win_fence(0, win);
	/* rank 0 holds rank 2's lock while it computes; rank 1 waits for it */
	if (rank == 0) {
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 2, 0, win);
		MPI_Put(&v, 1, MPI_INT, 2, 1, 1, MPI_INT, win);
		MPI_Win_flush(2, win);
		MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
		compute(1.5);
		MPI_Win_unlock(2, win);
	} else if (rank == 1) {
		MPI_Recv(&got, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 2, 0, win);
		MPI_Accumulate(&v, 1, MPI_INT, 2, 1, 1, MPI_INT, MPI_SUM, win);
		MPI_Win_unlock(2, win);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	/* PSCW: rank 1 exposes to rank 0, which computes before completing */
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	peer = 1 - rank;
	if (rank < 2) {
		MPI_Group_incl(world, 1, &peer, &other);
		if (rank == 1) {
			MPI_Win_post(other, 0, win);
			MPI_Win_wait(win);
		} else {
			MPI_Win_start(other, 0, win);
			MPI_Put(&v, 1, MPI_INT, 1, 2, 1, MPI_INT, win);
			compute(1.5);
			MPI_Win_complete(win);
		}
		MPI_Group_free(&other);
	}
	MPI_Group_free(&world);
	/* rank 2 polls for a message rank 0 sends after computing */
	if (rank == 2) {
		while (!flag)
			MPI_Iprobe(0, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
		MPI_Recv(&got, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else if (rank == 0) {
		compute(1.5);
		MPI_Send(&v, 1, MPI_INT, 2, 5, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_free(&win);
	int all[12];
	MPI_Gather(buf, 4, MPI_INT, all, 4, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0)
		for (int i = 0; i < 12; i++)
			printf("%d%c", all[i], i % 4 == 3 ? '\n' : ' ');
	MPI_Finalize();
	return 0;
}
