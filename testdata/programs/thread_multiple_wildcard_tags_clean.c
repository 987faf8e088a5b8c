/* The correct twin of thread_multiple_wildcard_order.c: two threads of
 * rank 0 each receive a message from any source, but each with a tag of
 * its own (the sender's rank), so thread A always gets rank 1's message.
 * Each wildcard receive has one possible match: one interleaving.
 * mpivet: np=3 verdict=ok interleavings=1
 */
#include <assert.h>
#include <mpi.h>
#include <pthread.h>
#include <unistd.h>

static pthread_barrier_t posted;

static void *thread_a(void *arg)
{
	int x = -1;
	MPI_Request r;
	(void)arg;
	MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &r);
	pthread_barrier_wait(&posted);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	assert(x == 1);
	return NULL;
}

static void *thread_b(void *arg)
{
	int x = -1;
	(void)arg;
	pthread_barrier_wait(&posted);
	MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	assert(x == 2);
	return NULL;
}

int main(int argc, char **argv)
{
	int rank, provided;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	if (provided < MPI_THREAD_MULTIPLE) {
		MPI_Finalize(); /* the MPI cannot run this test; nothing to check */
		return 0;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		pthread_t a, b;
		pthread_barrier_init(&posted, NULL, 2);
		pthread_create(&a, NULL, thread_a, NULL);
		pthread_create(&b, NULL, thread_b, NULL);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
	} else {
		if (rank == 2)
			usleep(200000);
		MPI_Send(&rank, 1, MPI_INT, 0, rank, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
