/* Seed 000, Fig. 2.4: rank 0 first receives from itself, which nobody sends.
 * Rank 0 waits for itself (the core); ranks 1 and 2, blocked sending to it
 * or in the barrier, only wait on it.
 * mpivet: np=3 verdict=error
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
			MPI_Recv(recvbuf + i, 1, MPI_INT, i, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
	MPI_Barrier(MPI_COMM_WORLD); // want "deadlock"
	MPI_Finalize();
	return 0;
}
