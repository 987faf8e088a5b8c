/* Partitioned requests (MPI 4.0) never freed, and a message received with
 * another type than it was sent with: rank 0 sends ints, rank 1 receives
 * floats (the clock's piggyback carries the sender's type signature);
 * neither rank frees its request (MPI_Request_free) before MPI_Finalize.
 * Open MPI 4.1 has no partitioned communication.
 * mpivet: np=2 verdict=error mpi=mpich
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, buf[4] = {1, 2, 3, 4};
	float got[4];
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Psend_init(buf, 2, 2, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r); // want "resource-leak"
		MPI_Start(&r);
		MPI_Pready_range(0, 1, r);
	} else {
		MPI_Precv_init(got, 2, 2, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r); // want "resource-leak" "type-mismatch"
		MPI_Start(&r);
	}
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
