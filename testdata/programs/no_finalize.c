/* Rank 1 leaves main without MPI_Finalize.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD); // want "program-failure"
	if (rank == 1)
		return 0;
	MPI_Finalize();
	return 0;
}
