/* MPI_THREAD_MULTIPLE: as thread_cond_wait_deadlock.c, but rank 0's main
 * thread sends before it waits for its worker, and it sends late (after
 * the stall delay), so that both ranks' main threads sleep on their
 * condition variables while the workers wait in MPI_Recv for a message
 * that does come. No finding.
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <pthread.h>
#include <unistd.h>

static int rank, got;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void *worker(void *arg)
{
	int x = -1;
	(void)arg;
	MPI_Recv(&x, 1, MPI_INT, 1 - rank, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
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
	if (rank == 0) {
		sleep(2); /* computes: the run makes no MPI progress meanwhile */
		MPI_Send(&rank, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
	}
	pthread_mutex_lock(&mu);
	while (!got)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	if (rank == 1)
		MPI_Send(&rank, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
	pthread_join(t, NULL);
	MPI_Finalize();
	return 0;
}
