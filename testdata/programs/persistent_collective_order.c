/* MPI 4.0 persistent collectives initialized in different orders: rank 0
 * makes the broadcast's request first, rank 1 the allreduce's. Their
 * initializations are collectives that every member must make in the same
 * order (MPI 4.0 §6.13), whatever order the requests are started in later.
 * mpivet: np=2 verdict=error mpi=mpich
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, x = 0, mine = 1, sum = 0;
	MPI_Request r[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Bcast_init(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]); // want "collective-mismatch"
		MPI_Allreduce_init(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
	} else {
		MPI_Allreduce_init(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]); // want "collective-mismatch"
		MPI_Bcast_init(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
	}
	MPI_Request_free(&r[0]);
	MPI_Request_free(&r[1]);
	MPI_Finalize();
	return 0;
}
