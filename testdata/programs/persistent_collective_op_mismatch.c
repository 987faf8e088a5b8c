/* An MPI 4.0 persistent allreduce whose operation differs between ranks:
 * rank 1 initializes it with MPI_MAX, the others with MPI_SUM. Each start
 * runs the collective its initialization describes, so every one of them
 * mismatches; the report points at the initializations.
 * mpivet: np=3 verdict=error mpi=mpich
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, mine = 1, sum = 0;
	MPI_Request a;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1)
		MPI_Allreduce_init(&mine, &sum, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &a); // want "collective-mismatch"
	else
		MPI_Allreduce_init(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &a); // want "collective-mismatch"
	for (int i = 0; i < 3; i++) {
		mine = rank + i;
		MPI_Start(&a);
		MPI_Wait(&a, MPI_STATUS_IGNORE);
	}
	MPI_Request_free(&a);
	MPI_Finalize();
	return 0;
}
