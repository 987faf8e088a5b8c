/* The correct twin of thread_multiple_deadlock.c: rank 0's worker thread
 * sends before it receives, so the exchange between the two ranks' worker
 * threads completes while the main threads wait in pthread_join.
 * mpivet: np=2 verdict=ok interleavings=1
 */
#include <mpi.h>
#include <pthread.h>

static int rank;

static void *worker(void *arg)
{
	int peer = 1 - rank, x = -1;
	(void)arg;
	if (rank == 0)
		MPI_Send(&rank, 1, MPI_INT, peer, 7, MPI_COMM_WORLD);
	MPI_Recv(&x, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (rank == 1)
		MPI_Send(&rank, 1, MPI_INT, peer, 7, MPI_COMM_WORLD);
	return NULL;
}

int main(int argc, char **argv)
{
	int provided;
	pthread_t t;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	if (provided < MPI_THREAD_MULTIPLE) {
		MPI_Finalize(); /* the MPI cannot run this test; nothing to check */
		return 0;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	MPI_Finalize();
	return 0;
}
