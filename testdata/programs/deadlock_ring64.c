/* 64 ranks exchange a value with their neighbours, agree on a sum, then
 * each receives from its left neighbour before sending to its right one:
 * every rank waits for the one before it, a deadlock of all 64 (one cycle).
 * Rank 0 receives at a line of its own. The HTML report's test opens the
 * report of this run: ranks 1-63 made the same calls and collapse into one
 * lane of the space-time diagram.
 * mpivet: np=64 mpi=openmpi verdict=error timeout=180s
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, size, v = 0, in[2], sum = 0;
	MPI_Request r[4];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	MPI_Irecv(&in[0], 1, MPI_INT, left, 0, MPI_COMM_WORLD, &r[0]);
	MPI_Irecv(&in[1], 1, MPI_INT, right, 0, MPI_COMM_WORLD, &r[1]);
	MPI_Isend(&rank, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &r[2]);
	MPI_Isend(&rank, 1, MPI_INT, right, 0, MPI_COMM_WORLD, &r[3]);
	MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
	MPI_Allreduce(&in[0], &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		MPI_Recv(&v, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
	else
		MPI_Recv(&v, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
	MPI_Send(&v, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
