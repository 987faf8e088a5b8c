/* MPI_THREAD_MULTIPLE: rank 0's main thread creates threads 1, 2 and 3 in
 * this order; each sleeps a random time (seeded by the clock) before its
 * first MPI call, so they reach MPI in a different order in every run, and
 * receives two messages of its own tag from any source. Rank 2 sends late:
 * the first run gives every thread rank 1's message first. Only thread 2
 * assumes it: the assert fails only in the replay that forces thread 2's
 * first receive (thread 2's event 0) to rank 2, which a replay finds only
 * if it names the threads as its parent run did. Correct twin:
 * thread_multiple_identity_clean.c.
 * mpivet: np=3 verdict=error
 */
#include <assert.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void *receiver(void *arg)
{
	int tag = (int)(intptr_t)arg, first = -1, second = -1;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	unsigned seed = (unsigned)(now.tv_nsec ^ (long)getpid() * 31 ^ tag);
	usleep((useconds_t)(rand_r(&seed) % 30000)); /* reach MPI in a racing order */
	MPI_Recv(&first, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Recv(&second, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#ifndef CLEAN
	if (tag == 2) {
		if (first != 1)
			fprintf(stderr, "thread 2 got rank %d's message first\n", first);
		assert(first == 1); // want "program-failure"
	}
#endif
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
