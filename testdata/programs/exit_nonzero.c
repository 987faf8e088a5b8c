/* Rank 0 finishes MPI properly but returns 3 from main.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Finalize(); // want "program-failure"
	return rank == 0 ? 3 : 0;
}
