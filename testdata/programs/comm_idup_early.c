/* A communicator made by MPI_Comm_idup used before the request of
 * MPI_Comm_idup completed: it is valid only from then on (MPI 4.0 §7.4.2).
 * The early use is a send to MPI_PROC_NULL, which the MPIs let pass; the
 * same use after MPI_Wait is correct.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int x = 1;
	MPI_Comm c;
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_idup(MPI_COMM_WORLD, &c, &r);
	MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, c); // want "request-lifecycle"
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, c);
	MPI_Comm_free(&c);
	MPI_Finalize();
	return 0;
}
