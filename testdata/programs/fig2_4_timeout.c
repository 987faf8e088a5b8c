/* Seed 000, Fig. 2.4: rank 0 first receives from itself, which nobody sends:
 * the run hangs; the timeout report says where every rank is.
 * mpivet: np=3 timeout=4s verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, size, sendbuf = 7, recvbuf[8];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank != 0)
		MPI_Send(&sendbuf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	else
		for (int i = 0; i < size; i++)
			MPI_Recv(recvbuf + i, 1, MPI_INT, i, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "timeout"
	MPI_Barrier(MPI_COMM_WORLD); // want "timeout"
	MPI_Finalize();
	return 0;
}
