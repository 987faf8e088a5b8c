/* A receive too small for its message with the default (fatal) error
 * handler: the MPI ends the job inside the receive. Open MPI's handler exits
 * with the error code, which says truncation. (MPICH's launcher can kill the
 * rank's supervisor before its error text is read, so that MPI is left out
 * of this test until the layer records fatal errors itself.)
 * mpivet: np=2 mpi=openmpi verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, out[4] = {1, 2, 3, 4}, in[4];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		MPI_Send(out, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
	else
		MPI_Recv(in, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "truncation"
	MPI_Finalize();
	return 0;
}
