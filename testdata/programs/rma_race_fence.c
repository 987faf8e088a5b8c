/* Conflicting one-sided accesses in one fence interval (3 ranks): ranks 1
 * and 2 both put to int 0 of rank 0 (Put/Put), rank 1 puts to int 1 while
 * rank 2 reads it (Put/Get), rank 1 puts to int 2 while rank 2 accumulates
 * into it (Put/Accumulate), and both write every other int of ints 8-11
 * through vector types that overlap at int 10. Not races: both accumulate
 * into int 3 with MPI_SUM on MPI_INT (atomic), both read int 4, and both
 * put to int 5 in different intervals (a fence between them).
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, buf[16] = {0}, v[4] = {1, 2, 3, 4}, got = 0, got2 = 0;
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Datatype every_other;
	MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
	MPI_Type_commit(&every_other);
	MPI_Win_fence(0, win);
	if (rank == 1) {
		MPI_Put(v, 1, MPI_INT, 0, 0, 1, MPI_INT, win); // want "rma-race"
		MPI_Put(v, 1, MPI_INT, 0, 1, 1, MPI_INT, win); // want "rma-race"
		MPI_Put(v, 1, MPI_INT, 0, 2, 1, MPI_INT, win); // want "rma-race"
		MPI_Put(v, 2, MPI_INT, 0, 8, 1, every_other, win); // want "rma-race"
	} else if (rank == 2) {
		MPI_Put(v + 1, 1, MPI_INT, 0, 0, 1, MPI_INT, win); // want "rma-race"
		MPI_Get(&got, 1, MPI_INT, 0, 1, 1, MPI_INT, win); // want "rma-race"
		MPI_Accumulate(v, 1, MPI_INT, 0, 2, 1, MPI_INT, MPI_SUM, win); // want "rma-race"
		MPI_Put(v, 2, MPI_INT, 0, 10, 1, every_other, win); // want "rma-race"
	}
	if (rank > 0) {
		MPI_Accumulate(v, 1, MPI_INT, 0, 3, 1, MPI_INT, MPI_SUM, win);
		MPI_Get(&got2, 1, MPI_INT, 0, 4, 1, MPI_INT, win); /* not into got: two pending gets into one buffer are a buffer-reuse */
	}
	if (rank == 1)
		MPI_Put(v, 1, MPI_INT, 0, 5, 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	if (rank == 2)
		MPI_Put(v, 1, MPI_INT, 0, 5, 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	MPI_Type_free(&every_other);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
