/* A derived datatype never committed, given to MPI_Send under the default
 * error handler. The layer reports it (invalid-argument, datatype) at the
 * send, with the line that made the type, before the MPI sees it; then
 * the MPI ends the job with MPI_ERR_TYPE.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, buf[8] = {0};
	MPI_Datatype every_other;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Type_vector(4, 1, 2, MPI_INT, &every_other);
	if (rank == 0)
		MPI_Send(buf, 1, every_other, 1, 0, MPI_COMM_WORLD); // want "invalid-argument" "program-failure"
	else
		MPI_Recv(buf, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Type_free(&every_other);
	MPI_Finalize();
	return 0;
}
