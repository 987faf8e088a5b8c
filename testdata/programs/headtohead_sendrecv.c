/* The safe way to exchange with a peer: MPI_Sendrecv, and an Irecv posted
 * before the send. Correct even with zero buffering: no finding.
 * mpivet: np=2 flags=--buffering=zero verdict=ok
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, out = 1, in;
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int peer = 1 - rank;
	MPI_Sendrecv(&out, 1, MPI_INT, peer, 0, &in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Irecv(&in, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &r);
	MPI_Send(&out, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
