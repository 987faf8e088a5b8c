/* Correct one-sided communication in fence epochs (active target, 3 ranks):
 * each rank puts into its right neighbour's halo, gets from its left
 * neighbour, and every rank accumulates into rank 0 with the same operation
 * and type (atomic: not a race); the next interval reads what the last one
 * wrote, after a fence. A window from MPI_Win_allocate, with a datatype of
 * two ints (extent 8) and a disp_unit of 4. Values are checked.
 * mpivet: np=3 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int right = (rank + 1) % size, left = (rank + size - 1) % size;

	int win_buf[16] = {0};
	MPI_Win win;
	MPI_Win_create(win_buf, sizeof win_buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	int mine[2] = {rank, rank * 10}, got[2] = {-1, -1}, one = 1;
	MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
	MPI_Put(mine, 2, MPI_INT, right, 0, 2, MPI_INT, win);          /* bytes 0-7 of the right neighbour: one origin */
	MPI_Accumulate(&one, 1, MPI_INT, 0, 4, 1, MPI_INT, MPI_SUM, win); /* every rank, same op and type: atomic */
	MPI_Win_fence(0, win);
	MPI_Get(got, 2, MPI_INT, left, 0, 2, MPI_INT, win); /* what the left neighbour received, read after the fence */
	MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
	int l2 = (left + size - 1) % size;
	if (win_buf[0] != left || win_buf[1] != left * 10 || got[0] != l2 || got[1] != l2 * 10 || (rank == 0 && win_buf[4] != size)) {
		fprintf(stderr, "rank %d: wrong values %d %d %d %d %d\n", rank, win_buf[0], win_buf[1], got[0], got[1], win_buf[4]);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Win_free(&win);

	/* A window the MPI allocates; a vector type of 2 ints with a stride of 2. */
	int *base;
	MPI_Win awin;
	MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &awin);
	for (int i = 0; i < 8; i++)
		base[i] = -1;
	MPI_Datatype pair;
	MPI_Type_vector(2, 1, 2, MPI_INT, &pair);
	MPI_Type_commit(&pair);
	MPI_Win_fence(0, awin);
	/* rank r writes ints 2r' and 2r'+2 of rank 0 (r' = r - 1): no overlap between origins */
	if (rank > 0 && rank <= 2)
		MPI_Put(mine, 2, MPI_INT, 0, (rank - 1), 1, pair, awin);
	MPI_Win_fence(0, awin);
	if (rank == 0 && size >= 3 && (base[0] != 1 || base[2] != 10 || base[1] != 2 || base[3] != 20)) {
		fprintf(stderr, "rank 0: wrong values %d %d %d %d\n", base[0], base[1], base[2], base[3]);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Type_free(&pair);
	MPI_Win_free(&awin);
	if (rank == 0)
		printf("ok\n");
	MPI_Finalize();
	return 0;
}
