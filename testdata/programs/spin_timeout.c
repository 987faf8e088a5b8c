/* Rank 1 never comes back from a loop outside MPI; the others wait for it in
 * a barrier. Not a deadlock (rank 1 could still arrive), so the run ends at
 * its time limit, saying where every rank is.
 * mpivet: np=3 timeout=5s verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank;
	volatile int spin = 1;
	MPI_Init(&argc, &argv); // want "timeout"
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1)
		while (spin)
			;
	MPI_Barrier(MPI_COMM_WORLD); // want "timeout"
	MPI_Finalize();
	return 0;
}
