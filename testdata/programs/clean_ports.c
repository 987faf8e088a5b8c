/* Ports between the ranks of one run: rank 0 opens a port and sends its
 * name to rank 1; the even ranks accept and the odd ones connect
 * (MPI_Comm_accept, MPI_Comm_connect, each collective over its half), the
 * even ranks send to rank 1 over the intercommunicator, which receives
 * with wildcards, and all free what they made. Every process of the
 * intercommunicator is one mpivet launched: it gets its shadow, its
 * messages their clocks, and both orders of rank 1's receives are explored.
 * (Debian's MPICH 4.0, ch4:ucx, does not support ports: Open MPI only.)
 * mpivet: np=3 verdict=ok mpi=openmpi interleavings=2
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, v = 0;
	char port[MPI_MAX_PORT_NAME] = "";
	MPI_Comm half, inter;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	if (rank == 0) {
		MPI_Open_port(MPI_INFO_NULL, port);
		MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
	} else if (rank == 1) {
		MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	if (rank % 2 == 0)
		MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
	else
		MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter);
	if (rank % 2 == 0)
		MPI_Send(&rank, 1, MPI_INT, 0, 0, inter);
	else if (rank == 1) {
		for (int i = 0; i < (size + 1) / 2; i++)
			MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, inter, MPI_STATUS_IGNORE);
	}
	MPI_Comm_disconnect(&inter);
	if (rank == 0)
		MPI_Close_port(port);
	MPI_Comm_free(&half);
	if (rank == 1)
		printf("last %d\n", v);
	MPI_Finalize();
	return 0;
}
