/* MPI_THREAD_MULTIPLE: a worker thread of each rank receives from the
 * other rank before it sends to it, so both workers wait for each other,
 * while the main threads wait for their workers in pthread_join. The first
 * run finds the deadlock, at the workers' receives.
 * thread_multiple_exchange_clean.c has rank 0's worker send first.
 * mpivet: np=2 verdict=error interleavings=1
 */
#include <mpi.h>
#include <pthread.h>

static int rank;

static void *worker(void *arg)
{
	int peer = 1 - rank, x = -1;
	(void)arg;
	MPI_Recv(&x, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
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
