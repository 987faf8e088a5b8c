/* A ring with MPI_Sendrecv and a reduction: correct, no finding.
 * mpivet: np=4 verdict=ok
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, size, token, sum = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	token = rank;
	for (int i = 0; i < size; i++) {
		int in;
		MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 0, &in, 1, MPI_INT, (rank + size - 1) % size, 0,
			     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		sum += in;
		token = in;
	}
	MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Finalize();
	return sum == size * size * (size - 1) / 2 ? 0 : 1;
}
