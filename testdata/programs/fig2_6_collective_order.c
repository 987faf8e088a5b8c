/* Seed 000, Fig. 2.6: rank 0 calls MPI_Bcast then MPI_Barrier, rank 1 the
 * other way round. Open MPI runs it (its small broadcast does not
 * synchronise); MPICH's barrier receives the broadcast's message and ends
 * the job ("Message truncated"). Either way the order differs.
 * mpivet: np=2 timeout=20s verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, buffer[4] = {0};
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Bcast(buffer, 4, MPI_INT, 0, MPI_COMM_WORLD); // want "collective-mismatch"
		MPI_Barrier(MPI_COMM_WORLD);
	} else {
		MPI_Barrier(MPI_COMM_WORLD); // want "collective-mismatch" want(mpich) "program-failure"
		MPI_Bcast(buffer, 4, MPI_INT, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
