/* Correct passive-target one-sided communication (3 ranks): exclusive locks
 * that several origins take on the same bytes (serialised: not a race),
 * shared locks whose accesses to the same bytes are ordered by a flush and a
 * barrier, MPI_Win_lock_all with request-based MPI_Rput/MPI_Rget, atomic
 * MPI_Fetch_and_op and MPI_Compare_and_swap on one counter from every rank,
 * and a dynamic window (attach/detach). Values are checked. The window is
 * MPI_Win_allocate's. (MPI_Compare_and_swap crashes natively in Open MPI
 * 4.1.4's shared-memory transport, mca_btl_vader_emu_acswap: MPICH only.)
 * mpivet: np=3 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void expect(int ok, int rank, const char *what)
{
	if (!ok) {
		fprintf(stderr, "rank %d: wrong %s\n", rank, what);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	long *buf;
	MPI_Win win;
	MPI_Win_allocate(8 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win);
	MPI_Win_lock_all(0, win);
	for (int i = 0; i < 8; i++)
		buf[i] = 0;
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);

	/* Exclusive locks: every rank adds to rank 0's buf[0] by get, add, put. */
	long v;
	MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
	MPI_Get(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
	MPI_Win_flush(0, win);
	v += rank + 1;
	MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
	MPI_Win_unlock(0, win);
	MPI_Barrier(MPI_COMM_WORLD);

	/* Shared locks: rank 1 writes buf[1] of rank 2 and flushes; after the
	 * barrier rank 0 reads it and rank 2 overwrites it... in turn. */
	long w = 42, r = -1;
	MPI_Win_lock(MPI_LOCK_SHARED, 2, 0, win);
	if (rank == 1) {
		MPI_Put(&w, 1, MPI_LONG, 2, 1, 1, MPI_LONG, win);
		MPI_Win_flush(2, win);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		MPI_Get(&r, 1, MPI_LONG, 2, 1, 1, MPI_LONG, win);
		MPI_Win_flush(2, win);
		expect(r == 42, rank, "flushed value");
	}
	MPI_Win_unlock(2, win);
	MPI_Barrier(MPI_COMM_WORLD);

	/* lock_all: request-based operations, each rank to its own slot of its right neighbour. */
	long mine = 100 + rank, back = -1;
	int right = (rank + 1) % size;
	MPI_Request req[2];
	MPI_Win_lock_all(0, win);
	MPI_Rput(&mine, 1, MPI_LONG, right, 2, 1, MPI_LONG, win, &req[0]);
	MPI_Wait(&req[0], MPI_STATUS_IGNORE);
	MPI_Win_flush_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Rget(&back, 1, MPI_LONG, right, 2, 1, MPI_LONG, win, &req[1]);
	MPI_Wait(&req[1], MPI_STATUS_IGNORE);
	expect(back == mine, rank, "Rget");
	/* atomics on rank 0's buf[3]: same datatype, no race */
	long one = 1, old = -1, cmp = 0, swap = rank + 1, was = -1;
	MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 3, MPI_SUM, win);
#ifdef MPICH_VERSION
	MPI_Compare_and_swap(&swap, &cmp, &was, MPI_LONG, 0, 4, win);
#else
	(void)cmp, (void)was;
	MPI_Accumulate(&swap, 1, MPI_LONG, 0, 4, 1, MPI_LONG, MPI_REPLACE, win);
#endif
	MPI_Win_flush(0, win);
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		expect(buf[0] == size * (size + 1) / 2, rank, "exclusive sum");
		expect(buf[3] == size, rank, "fetch and op");
		expect(buf[4] >= 1 && buf[4] <= size, rank, "compare and swap, or replace");
	}
	MPI_Win_free(&win);

	/* A dynamic window: rank 1 attaches memory and sends its address to rank 0. */
	MPI_Win dwin;
	MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dwin);
	int dyn[4] = {0};
	MPI_Aint addr = 0;
	if (rank == 1) {
		MPI_Win_attach(dwin, dyn, sizeof dyn);
		MPI_Get_address(dyn, &addr);
	}
	MPI_Bcast(&addr, 1, MPI_AINT, 1, MPI_COMM_WORLD);
	if (rank == 0) {
		int x = 7;
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, dwin);
		MPI_Put(&x, 1, MPI_INT, 1, addr, 1, MPI_INT, dwin);
		MPI_Win_unlock(1, dwin);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		expect(dyn[0] == 7, rank, "dynamic window");
		MPI_Win_detach(dwin, dyn);
	}
	MPI_Win_free(&dwin);
	if (rank == 0)
		printf("ok\n");
	MPI_Finalize();
	return 0;
}
