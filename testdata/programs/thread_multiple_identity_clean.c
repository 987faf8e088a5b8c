/* Correct twin of thread_multiple_identity.c: rank 0's threads 1, 2 and 3,
 * created in this order, reach MPI in a random order and each receives two
 * messages of its own tag from any source, in either order. Every
 * interleaving is clean; corpus/threads_test.go reads its replays: each
 * names every thread as its parent run did, and forces the receive of the
 * thread its decision names.
 * mpivet: np=3 verdict=ok
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void *receiver(void *arg)
{
	int tag = (int)(intptr_t)arg, x;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	unsigned seed = (unsigned)(now.tv_nsec ^ (long)getpid() * 31 ^ tag);
	usleep((useconds_t)(rand_r(&seed) % 30000)); /* reach MPI in a racing order */
	for (int i = 0; i < 2; i++)
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
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
		pthread_t t[3];
		for (int i = 0; i < 3; i++)
			pthread_create(&t[i], NULL, receiver, (void *)(intptr_t)(i + 1));
		for (int i = 0; i < 3; i++)
			pthread_join(t[i], NULL);
	} else {
		if (rank == 2)
			usleep(300000);
		for (int tag = 1; tag <= 3; tag++)
			MPI_Send(&rank, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
