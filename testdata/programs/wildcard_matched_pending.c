/* Seed 003 §6: a nonblocking wildcard receive that the MPI has matched but
 * the program has not completed yet. Rank 1's wildcard Irecv takes rank 0's
 * message at once, but rank 1 completes it only after a receive from rank 2,
 * which computes for 2 seconds first. Meanwhile rank 0 waits for rank 1 and
 * rank 1 for rank 2: no rank completes an MPI call for 2 seconds, yet it is
 * not a deadlock (rank 2 can still act), and nothing is reported.
 * mpivet: np=3 verdict=ok
 */
#include <mpi.h>
#include <time.h>

static void compute(double seconds)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 < seconds);
}

int main(int argc, char **argv)
{
	int rank, x = 0, y = 0;
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Send(&rank, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
		MPI_Recv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else if (rank == 1) {
		MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &r);
		MPI_Recv(&y, 1, MPI_INT, 2, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
	} else {
		compute(2.0);
		MPI_Send(&rank, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
