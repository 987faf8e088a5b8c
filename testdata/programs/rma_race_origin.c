/* Operations of one origin that race with each other (2 ranks): within one
 * epoch nothing orders the operations of an origin at the target but
 * accumulates of the same elements (MPI 4.0 §12.7). In one lock epoch on
 * rank 0, rank 1 puts int 0 then gets it back, puts ints 1-2 then ints 2-3,
 * accumulates a float into int 4 then an int, puts int 5 then accumulates
 * into it, puts int 6 twice from a loop, and puts int 7 then, after a
 * flush_local (complete at the origin only), gets it. Through a window
 * whose disp_unit is 1 it accumulates ints at byte 32 then at byte 33 (not
 * the same elements), and a double at byte 40 then an int over its second
 * half. In a fence epoch it puts int 8 then gets it.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, buf[16] = {0}, v = 1, w = 2, got[4] = {0};
	float f = 1.0f;
	double d = 1.0;
	_Alignas(64) char bytes[64] = {0};
	MPI_Win win, bwin;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_create(bytes, sizeof bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &bwin);
	if (rank == 1) {
		int two[2] = {3, 4};
		MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
		MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win); // want "rma-race"
		MPI_Get(&got[0], 1, MPI_INT, 0, 0, 1, MPI_INT, win); // want "rma-race"
		MPI_Put(two, 2, MPI_INT, 0, 1, 2, MPI_INT, win); // want "rma-race"
		MPI_Put(two, 2, MPI_INT, 0, 2, 2, MPI_INT, win); // want "rma-race"
		MPI_Accumulate(&f, 1, MPI_FLOAT, 0, 4, 1, MPI_FLOAT, MPI_SUM, win); // want "rma-race"
		MPI_Accumulate(&v, 1, MPI_INT, 0, 4, 1, MPI_INT, MPI_SUM, win); // want "rma-race"
		MPI_Put(&w, 1, MPI_INT, 0, 5, 1, MPI_INT, win); // want "rma-race"
		MPI_Accumulate(&v, 1, MPI_INT, 0, 5, 1, MPI_INT, MPI_SUM, win); // want "rma-race"
		for (int i = 0; i < 2; i++)
			MPI_Put(&w, 1, MPI_INT, 0, 6, 1, MPI_INT, win); // want "rma-race"
		MPI_Put(&w, 1, MPI_INT, 0, 7, 1, MPI_INT, win); // want "rma-race"
		MPI_Win_flush_local(0, win);
		MPI_Get(&got[1], 1, MPI_INT, 0, 7, 1, MPI_INT, win); // want "rma-race"
		MPI_Win_unlock(0, win);

		MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, bwin);
		MPI_Accumulate(&v, 1, MPI_INT, 0, 32, 1, MPI_INT, MPI_SUM, bwin); // want "rma-race"
		MPI_Accumulate(&v, 1, MPI_INT, 0, 33, 1, MPI_INT, MPI_SUM, bwin); // want "rma-race"
		MPI_Accumulate(&d, 1, MPI_DOUBLE, 0, 40, 1, MPI_DOUBLE, MPI_SUM, bwin); // want "rma-race"
		MPI_Accumulate(&v, 1, MPI_INT, 0, 44, 1, MPI_INT, MPI_SUM, bwin); // want "rma-race"
		MPI_Win_unlock(0, bwin);
	}
	MPI_Win_fence(0, win);
	if (rank == 1) {
		MPI_Put(&v, 1, MPI_INT, 0, 8, 1, MPI_INT, win); // want "rma-race"
		MPI_Get(&got[2], 1, MPI_INT, 0, 8, 1, MPI_INT, win); // want "rma-race"
	}
	MPI_Win_fence(0, win);
	MPI_Win_free(&bwin);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
