/* MPI_THREAD_MULTIPLE: on each rank, a worker thread receives from the
 * other rank and then signals a condition variable, on which the main
 * thread waits before it sends to the other rank. Both workers wait for a
 * message the other rank's main thread sends only once its own worker has
 * one: a deadlock in which one thread of each rank is blocked in MPI and
 * the other outside it, in pthread_cond_wait. The first run finds it, at
 * the workers' receives and the main threads' waits.
 * thread_cond_wait_clean.c has rank 0's main thread send first.
 * mpivet: np=2 verdict=error interleavings=1 says=outside
 */
#include <mpi.h>
#include <pthread.h>

static int rank, got;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void *worker(void *arg)
{
	int x = -1;
	(void)arg;
	MPI_Recv(&x, 1, MPI_INT, 1 - rank, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
	pthread_mutex_lock(&mu);
	got = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
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
	pthread_mutex_lock(&mu);
	while (!got)
		pthread_cond_wait(&cv, &mu); // want "deadlock"
	pthread_mutex_unlock(&mu);
	MPI_Send(&rank, 1, MPI_INT, 1 - rank, 7, MPI_COMM_WORLD);
	pthread_join(t, NULL);
	MPI_Finalize();
	return 0;
}
