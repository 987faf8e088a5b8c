/* Rank 1 dereferences a bad pointer after a barrier; the launcher then
 * terminates the others. One finding, at the faulting line.
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank;
	volatile int *p = (int *)16;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1)
		*p = 42; // want "program-failure"
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
