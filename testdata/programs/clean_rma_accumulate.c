/* Accumulates of several origins into the same ints through different
 * datatypes (3 ranks): atomic per element of the type map's basic type, so
 * not a race. In one fence epoch ranks 1 and 2 add to ints 0-7 of rank 0
 * with MPI_SUM, rank 1 through a contiguous type of 4 ints (twice), rank 2
 * through a vector of every other int and as 8 MPI_INTs, and both add to
 * ints 16-95, rank 1 through a vector of 40 ints, every other one (more
 * blocks than the layer records: its basic type is found from the type's
 * construction), rank 2 as 80 MPI_INTs; then, in one
 * passive-target epoch each, both add to ints 8-11 through an indexed type
 * of whole ints and as MPI_INTs, and read them with MPI_Get_accumulate
 * (MPI_NO_OP). Values are checked. Twin of rma_race_accumulate.c.
 * mpivet: np=3 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, buf[96] = {0}, ones[80], got[4] = {0};
	MPI_Win win;
	MPI_Datatype four, every_other, pairs, forty;
	for (int i = 0; i < 80; i++)
		ones[i] = 1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Type_contiguous(4, MPI_INT, &four);
	MPI_Type_vector(4, 1, 2, MPI_INT, &every_other);
	int lens[2] = {2, 2}, disps[2] = {0, 2};
	MPI_Type_indexed(2, lens, disps, MPI_INT, &pairs);
	MPI_Type_vector(40, 1, 2, MPI_INT, &forty);
	MPI_Type_commit(&forty);
	MPI_Type_commit(&four);
	MPI_Type_commit(&every_other);
	MPI_Type_commit(&pairs);
	MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_fence(0, win);
	if (rank == 1) {
		MPI_Accumulate(ones, 8, MPI_INT, 0, 0, 2, four, MPI_SUM, win);
		MPI_Accumulate(ones, 40, MPI_INT, 0, 16, 1, forty, MPI_SUM, win);
	} else if (rank == 2) {
		MPI_Accumulate(ones, 4, MPI_INT, 0, 1, 1, every_other, MPI_SUM, win);
		MPI_Accumulate(ones, 8, MPI_INT, 0, 0, 8, MPI_INT, MPI_SUM, win);
		MPI_Accumulate(ones, 80, MPI_INT, 0, 16, 80, MPI_INT, MPI_SUM, win);
	}
	MPI_Win_fence(0, win);
	if (rank > 0) {
		MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
		if (rank == 1)
			MPI_Accumulate(ones, 4, MPI_INT, 0, 8, 1, pairs, MPI_SUM, win);
		else
			MPI_Accumulate(ones, 4, MPI_INT, 0, 8, 4, MPI_INT, MPI_SUM, win);
		MPI_Get_accumulate(NULL, 0, MPI_INT, got, 4, MPI_INT, 0, 8, 4, MPI_INT, MPI_NO_OP, win);
		MPI_Win_unlock(0, win);
		for (int i = 0; i < 4; i++)
			if (got[i] < 1 || got[i] > 2) {
				fprintf(stderr, "rank %d: wrong int %d read: %d\n", rank, 8 + i, got[i]);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		for (int i = 0; i < 96; i++)
			if (buf[i] != (i < 8 ? 2 + i % 2 : i < 12 ? 2 : i < 16 ? 0 : 2 - i % 2)) {
				fprintf(stderr, "wrong int %d: %d\n", i, buf[i]);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
	MPI_Win_free(&win);
	MPI_Type_free(&four);
	MPI_Type_free(&every_other);
	MPI_Type_free(&pairs);
	MPI_Type_free(&forty);
	MPI_Finalize();
	return 0;
}
