/* Objects made by MPI 4.0 large-count calls are followed as those of their
 * int forms: a datatype made by MPI_Type_contiguous_c and a request of
 * MPI_Irecv_c that are never freed are leaks (the receive also never
 * completes: request-lifecycle); two puts by MPI_Put_c to the
 * same int of rank 0 in one fence epoch race.
 * mpivet: np=3 verdict=error mpi=mpich
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, x = 0, w[4] = {0};
	MPI_Request r;
	MPI_Datatype two;
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Type_contiguous_c(2, MPI_INT, &two); // want "resource-leak"
	MPI_Type_commit(&two);
	if (rank == 0) {
		MPI_Irecv_c(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r); // want "resource-leak" "request-lifecycle"
	} else if (rank == 1) {
		MPI_Send_c(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Win_create_c(w, sizeof w, (MPI_Aint)sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_fence(0, win);
	if (rank > 0)
		MPI_Put_c(&rank, 1, MPI_INT, 0, 2, 1, MPI_INT, win); // want "rma-race"
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
