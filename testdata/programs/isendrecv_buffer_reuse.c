/* MPI 4.0 MPI_Isendrecv's buffers are the MPI's until the request completes:
 * rank 0 writes its receive buffer before MPI_Wait, rank 1 its send buffer. The buffer checker watches both buffers of the one request.
 * mpivet: np=2 verdict=error mpi=mpich
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank;
	static int out[1024], in[1024];
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Isendrecv(out, 1024, MPI_INT, 1 - rank, 0, in, 1024, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, &r); // want "buffer-reuse"
	if (rank == 0)
		in[3] = 1;
	else
		out[5] = 7;
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
