/* MPI_THREAD_MULTIPLE: two threads of rank 0 each receive one message from
 * rank 1 with the same tag, no wildcard; rank 1 sends 1, then 2. Which
 * thread gets the first message is the scheduler's (the MPI allows
 * either): thread A usually posts its receive first (B sleeps before its
 * own), so the first run gives it 1. Thread A assumes it always does. The
 * exploration replays the run with each thread's receive held back until
 * the other's has matched; in the one that holds A back, B takes 1, A
 * takes 2 and A's assert fails. thread_multiple_same_source_clean.c sends
 * the same value twice.
 * mpivet: np=2 verdict=error interleavings=3
 */
#include <assert.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static void *thread_a(void *arg)
{
	int x = -1;
	(void)arg;
	MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (x != 1)
		fprintf(stderr, "thread A got message %d, not the first\n", x);
	assert(x == 1); // want "program-failure"
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
		usleep(200000); /* both receives are posted when the messages come */
		for (int v = 1; v <= 2; v++)
			MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
