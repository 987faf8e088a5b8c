/* Operations of one origin on the same bytes, ordered (2 ranks; twin of
 * rma_race_origin.c). In lock epochs on rank 0, rank 1: puts int 0, flushes
 * (complete at the target) and gets it back; gets int 1, flush_local (the
 * Get's data arrived: it read the target) and puts it; replaces int 2 then
 * adds to it (accumulates of one origin to the same ints are ordered by
 * default, whatever their operations); fetches and adds, then reads with
 * MPI_Get_accumulate(MPI_NO_OP), int 3; puts int 4 and gets int 5
 * (disjoint); puts int 6, unlocks, locks again and gets it; adds to ints
 * 8-11 through a contiguous type of 4 ints, then to int 9 as MPI_INT (the
 * same elements), and in a loop to int 12. In fence epochs it puts int 7,
 * fences, and gets it. Values are checked.
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>

static void expect(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "wrong %s\n", what);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

int main(int argc, char **argv)
{
	int rank, buf[16] = {0}, v = 7, w = 5, one = 1, got[8] = {0}, old = -1, ones[4] = {1, 1, 1, 1};
	MPI_Win win;
	MPI_Datatype four;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Type_contiguous(4, MPI_INT, &four);
	MPI_Type_commit(&four);
	buf[1] = 11;
	MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	if (rank == 1) {
		MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
		MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
		MPI_Win_flush(0, win);
		MPI_Get(&got[0], 1, MPI_INT, 0, 0, 1, MPI_INT, win);
		MPI_Get(&got[1], 1, MPI_INT, 0, 1, 1, MPI_INT, win);
		MPI_Win_flush_local(0, win);
		MPI_Put(&got[1], 1, MPI_INT, 0, 1, 1, MPI_INT, win);
		MPI_Accumulate(&w, 1, MPI_INT, 0, 2, 1, MPI_INT, MPI_REPLACE, win);
		MPI_Accumulate(&one, 1, MPI_INT, 0, 2, 1, MPI_INT, MPI_SUM, win);
		MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 3, MPI_SUM, win);
		MPI_Get_accumulate(NULL, 0, MPI_INT, &got[2], 1, MPI_INT, 0, 3, 1, MPI_INT, MPI_NO_OP, win);
		MPI_Put(&v, 1, MPI_INT, 0, 4, 1, MPI_INT, win);
		MPI_Get(&got[3], 1, MPI_INT, 0, 5, 1, MPI_INT, win);
		MPI_Put(&v, 1, MPI_INT, 0, 6, 1, MPI_INT, win);
		MPI_Win_unlock(0, win);
		expect(got[0] == 7, "flushed put");
		expect(old == 0 && got[2] == 1, "fetch and op");
		MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
		MPI_Get(&got[4], 1, MPI_INT, 0, 6, 1, MPI_INT, win);
		MPI_Accumulate(ones, 1, four, 0, 8, 1, four, MPI_SUM, win);
		MPI_Accumulate(&one, 1, MPI_INT, 0, 9, 1, MPI_INT, MPI_SUM, win);
		for (int i = 0; i < 3; i++)
			MPI_Accumulate(&one, 1, MPI_INT, 0, 12, 1, MPI_INT, MPI_SUM, win);
		MPI_Win_unlock(0, win);
		expect(got[4] == 7, "put before the unlock");
	}
	MPI_Win_fence(0, win);
	if (rank == 1)
		MPI_Put(&w, 1, MPI_INT, 0, 7, 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	if (rank == 1)
		MPI_Get(&got[5], 1, MPI_INT, 0, 7, 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	if (rank == 1)
		expect(got[5] == 5, "put before the fence");
	if (rank == 0) {
		expect(buf[0] == 7 && buf[1] == 11 && buf[2] == 6 && buf[3] == 1 && buf[4] == 7, "ints 0-4");
		expect(buf[8] == 1 && buf[9] == 2 && buf[10] == 1 && buf[11] == 1 && buf[12] == 3, "accumulated ints");
	}
	MPI_Win_free(&win);
	MPI_Type_free(&four);
	MPI_Finalize();
	return 0;
}
