/* MPI_THREAD_SERIALIZED kept: two threads per rank exchange with the other
 * rank on their own tags, each MPI call under one mutex (nonblocking calls
 * and a test loop, so that no thread holds the lock while it waits). The
 * threads take turns inside MPI: no finding.
 * (thread_serialized_overlap.c has two threads inside MPI at once.)
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int rank;

static void *exchange(void *arg)
{
	int id = *(int *)arg, out = 10 * rank + id, in = -1, done = 0;
	MPI_Request r[2];
	pthread_mutex_lock(&lock);
	MPI_Irecv(&in, 1, MPI_INT, 1 - rank, id, MPI_COMM_WORLD, &r[0]);
	MPI_Isend(&out, 1, MPI_INT, 1 - rank, id, MPI_COMM_WORLD, &r[1]);
	pthread_mutex_unlock(&lock);
	while (!done) {
		pthread_mutex_lock(&lock);
		MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);
		pthread_mutex_unlock(&lock);
	}
	printf("rank %d thread %d got %d\n", rank, id, in);
	return NULL;
}

int main(int argc, char **argv)
{
	int provided, ids[2] = {0, 1};
	pthread_t t[2];
	MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, exchange, &ids[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	MPI_Finalize();
	return 0;
}
