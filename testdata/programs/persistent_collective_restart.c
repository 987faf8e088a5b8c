/* An MPI 4.0 persistent broadcast started again while its first start is
 * still active (MPI 4.0 §3.9: a persistent request must be inactive when
 * started). mpivet reports the second start; MPICH fails it too.
 * mpivet: np=2 verdict=error mpi=mpich
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, x = 0;
	MPI_Request b;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Bcast_init(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &b);
	MPI_Start(&b);
	MPI_Start(&b); // want "request-lifecycle" "program-failure"
	MPI_Wait(&b, MPI_STATUS_IGNORE);
	MPI_Request_free(&b);
	MPI_Finalize();
	return 0;
}
