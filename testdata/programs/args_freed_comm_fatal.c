/* A communicator used after MPI_Comm_free, through a copy of its handle,
 * under the default error handler. The layer knows the handle as freed from
 * the free it saw and reports it (invalid-argument, comm) before the MPI
 * sees it; then MPICH ends the job with MPI_ERR_COMM and Open MPI, whose
 * handle points to memory the free gave back, crashes inside MPI_Barrier.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	MPI_Comm c, copy;
	MPI_Init(&argc, &argv);
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	copy = c;
	MPI_Comm_free(&c);
	MPI_Barrier(copy); // want "invalid-argument" "program-failure"
	MPI_Finalize();
	return 0;
}
