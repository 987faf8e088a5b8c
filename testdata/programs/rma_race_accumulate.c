/* Accumulates of two origins into the same bytes that are not atomic with
 * respect to each other (3 ranks; twin of clean_rma_accumulate.c): atomicity
 * holds per element of one predefined basic type. In one fence epoch on a
 * window whose disp_unit is 1, ranks 1 and 2 add ints at byte 0 and at
 * byte 1 (different element boundaries), a double at byte 16 and an int
 * over its second half, 4 ints as a contiguous type and an int replacing
 * one of them (different operations), and 4 ints as a contiguous type and
 * ints every 8 bytes from byte 50 through an hvector (misaligned).
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, ones[4] = {1, 1, 1, 1};
	double d = 1.0;
	_Alignas(64) char bytes[128] = {0};
	MPI_Win win;
	MPI_Datatype four, spread;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Type_contiguous(4, MPI_INT, &four);
	MPI_Type_create_hvector(2, 1, 8, MPI_INT, &spread);
	MPI_Type_commit(&four);
	MPI_Type_commit(&spread);
	MPI_Win_create(bytes, sizeof bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_fence(0, win);
	if (rank == 1) {
		MPI_Accumulate(ones, 2, MPI_INT, 0, 0, 2, MPI_INT, MPI_SUM, win); // want "rma-race"
		MPI_Accumulate(&d, 1, MPI_DOUBLE, 0, 16, 1, MPI_DOUBLE, MPI_SUM, win); // want "rma-race"
		MPI_Accumulate(ones, 4, MPI_INT, 0, 32, 1, four, MPI_SUM, win); // want "rma-race"
		MPI_Accumulate(ones, 4, MPI_INT, 0, 48, 1, four, MPI_SUM, win); // want "rma-race"
	} else if (rank == 2) {
		MPI_Accumulate(ones, 2, MPI_INT, 0, 1, 2, MPI_INT, MPI_SUM, win); // want "rma-race"
		MPI_Accumulate(ones, 1, MPI_INT, 0, 20, 1, MPI_INT, MPI_SUM, win); // want "rma-race"
		MPI_Accumulate(ones, 1, MPI_INT, 0, 36, 1, MPI_INT, MPI_REPLACE, win); // want "rma-race"
		MPI_Accumulate(ones, 2, MPI_INT, 0, 50, 1, spread, MPI_SUM, win); // want "rma-race"
	}
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);
	MPI_Type_free(&four);
	MPI_Type_free(&spread);
	MPI_Finalize();
	return 0;
}
