/* The correct twin of thread_multiple_same_source.c: two threads of rank 0
 * each receive one message from rank 1 with the same tag, and rank 1 sends
 * the same value twice, so it does not matter which thread gets which. The
 * exploration replays both assignments (each thread's receive held back
 * until the other's has matched).
 * mpivet: np=2 verdict=ok interleavings=3
 */
#include <assert.h>
#include <mpi.h>
#include <pthread.h>
#include <unistd.h>

static void *thread_a(void *arg)
{
	int x = -1;
	(void)arg;
	MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	assert(x == 7);
	return NULL;
}

static void *thread_b(void *arg)
{
	int x = -1;
	(void)arg;
	usleep(50000); /* timing only: A is not waited for */
	MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
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
		pthread_create(&a, NULL, thread_a, NULL);
		pthread_create(&b, NULL, thread_b, NULL);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
	} else if (rank == 1) {
		int v = 7;
		usleep(200000); /* both receives are posted when the messages come */
		MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
		MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
