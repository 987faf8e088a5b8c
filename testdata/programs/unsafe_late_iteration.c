/* A ring exchange of 400 iterations that needs no buffering (even ranks
 * send first, odd ones receive first) but for iteration 300, where every
 * rank sends first: the small message is buffered, so the run completes;
 * without buffering each rank waits in that iteration's send. The layer
 * folds the loop's iterations, and the offline zero-buffering replay
 * leaves the ranks' repetitions out together, yet finds the send of the
 * late iteration.
 * mpivet: np=2 verdict=error buffering=run
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, size, out = 1, in;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	for (int i = 0; i < 400; i++) {
		if (i == 300) {
			MPI_Send(&out, 1, MPI_INT, right, 0, MPI_COMM_WORLD); // want "unsafe-buffering"
			MPI_Recv(&in, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank % 2 == 0) {
			MPI_Send(&out, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
			MPI_Recv(&in, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&in, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(&out, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
		}
	}
	MPI_Finalize();
	return 0;
}
