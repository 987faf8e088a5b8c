/* Completion orders that change nothing: rank 0 receives one message from
 * rank 1 and one from rank 2 in each of 20 iterations, with MPI_Waitany, and
 * adds them up. Every Waitany over the two receives could have returned the
 * other first (20 events with another outcome), but what rank 0 does next
 * is the same either way. The exploration replays one other order per
 * context (the first iterations, whose preceding calls differ, and the
 * steady state), finds the same calls after it, and leaves the other orders
 * out as equivalent: 4 replays, not 20 (--completion-orders=all: 20).
 * mpivet: np=3 verdict=ok interleavings=5
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, sum = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int it = 0; it < 20; it++) {
		if (rank == 0) {
			int v[2], i;
			MPI_Request r[2];
			MPI_Irecv(&v[0], 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r[0]);
			MPI_Irecv(&v[1], 1, MPI_INT, 2, 0, MPI_COMM_WORLD, &r[1]);
			MPI_Waitany(2, r, &i, MPI_STATUS_IGNORE);
			sum += v[i];
			MPI_Waitany(2, r, &i, MPI_STATUS_IGNORE);
			sum += v[i];
		} else {
			int v = rank * it;
			MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
		}
	}
	if (rank == 0 && sum != 3 * 190)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Finalize();
	return 0;
}
