/* Correct loads and stores of a target's own window during other ranks'
 * passive-target epochs (2 ranks): ordered after the origin's unlock by a
 * barrier, after its flush by a message the target receives first, before
 * the origin's lock by a barrier; bytes other than the operation's on the
 * same page while it runs; and the target locking its own window
 * exclusively around its store while the origin's exclusive lock epoch
 * writes the same byte. Values are checked where the order is the
 * program's. The twin of rma_target_passive.c (also with a window of
 * MPI_Win_create).
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void expect(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "wrong %s\n", what);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

/* cases runs the correct accesses on window win, whose memory is mem. */
static void cases(int rank, volatile int *mem, MPI_Win win)
{
	int v = 1, got = -1;
	if (rank == 0) {
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
		MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
		MPI_Win_unlock(1, win);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		expect(mem[0] == 1, "Put before the barrier");
		mem[0] = 2;
	}
	if (rank == 0) {
		v = 5;
		MPI_Win_lock_all(0, win);
		MPI_Put(&v, 1, MPI_INT, 1, 8, 1, MPI_INT, win);
		MPI_Win_flush(1, win);
		MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
		MPI_Put(&v, 1, MPI_INT, 1, 2, 1, MPI_INT, win);
		MPI_Win_unlock_all(win);
	} else {
		mem[20] = 4; /* other bytes of the page, while the Puts run */
		MPI_Recv(&got, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		expect(mem[8] == 5, "Put flushed before the message");
		mem[8] = 6;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1)
		mem[24] = 7; /* before the barrier that precedes the Get */
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
		MPI_Get(&got, 1, MPI_INT, 1, 24, 1, MPI_INT, win);
		MPI_Win_unlock(1, win);
		expect(got == 7, "Get after the barrier");
	}
	if (rank == 0 || rank == 1) { /* both lock rank 1 exclusively */
		v = 9;
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
		if (rank == 0)
			MPI_Put(&v, 1, MPI_INT, 1, 30, 1, MPI_INT, win);
		else
			mem[30] = 8;
		MPI_Win_unlock(1, win);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1)
		expect(mem[30] == 8 || mem[30] == 9, "exclusive epochs");
}

int main(int argc, char **argv)
{
	int rank, *mem;
	MPI_Win win, cwin;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
	for (int i = 0; i < 64; i++)
		mem[i] = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	cases(rank, mem, win);
	MPI_Win_free(&win);

	int *cmem = NULL;
	long pg = 4096;
	if (posix_memalign((void **)&cmem, pg, 2 * pg))
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (int i = 0; i < 64; i++)
		cmem[i] = 0;
	MPI_Win_create(cmem, 2 * pg, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &cwin);
	MPI_Barrier(MPI_COMM_WORLD);
	cases(rank, cmem, cwin);
	MPI_Win_free(&cwin);
	free(cmem);
	if (rank == 0)
		printf("ok\n");
	MPI_Finalize();
	return 0;
}
