/* A wait on a partitioned send (MPI 4.0) whose partitions were not all
 * marked ready: rank 0 marks partition 0 of 2 and waits, which never
 * completes; rank 1 waits for the whole message. mpivet does not follow
 * partitions: the run is stopped at its time limit, with rank 0 blocked at
 * its wait. Open MPI 4.1 has no partitioned communication.
 * mpivet: np=2 timeout=5s verdict=error mpi=mpich
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, buf[4] = {1, 2, 3, 4};
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Psend_init(buf, 2, 2, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
		MPI_Start(&r);
		MPI_Pready(0, r);
		MPI_Wait(&r, MPI_STATUS_IGNORE); // want "timeout"
	} else {
		MPI_Precv_init(buf, 2, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
		MPI_Start(&r);
		MPI_Wait(&r, MPI_STATUS_IGNORE); // want "timeout"
	}
	MPI_Request_free(&r);
	MPI_Finalize();
	return 0;
}
