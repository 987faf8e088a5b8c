/* An MPI 4.0 persistent allreduce started and completed twice and never
 * freed: its request is a leak at MPI_Finalize. A persistent broadcast
 * beside it is freed: no finding.
 * mpivet: np=2 verdict=error mpi=mpich
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, x = 0, mine = 1, sum = 0;
	MPI_Request a, b;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Allreduce_init(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &a); // want "resource-leak"
	MPI_Bcast_init(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &b);
	for (int i = 0; i < 2; i++) {
		MPI_Start(&a);
		MPI_Wait(&a, MPI_STATUS_IGNORE);
		MPI_Start(&b);
		MPI_Wait(&b, MPI_STATUS_IGNORE);
	}
	MPI_Request_free(&b);
	MPI_Finalize();
	return 0;
}
