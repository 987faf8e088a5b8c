/* MPI_THREAD_MULTIPLE: as thread_multiple_late_sender_clean.c, but rank
 * 0's second thread computes for 3 s and ends without sending. While it
 * runs, rank 0 may still act; once it has ended, both ranks wait in
 * MPI_Recv for a message that never comes: a deadlock, found then.
 * mpivet: np=2 verdict=error interleavings=1
 */
#include <mpi.h>
#include <pthread.h>
#include <time.h>

/* compute runs on the CPU for s seconds. */
static void compute(int s)
{
	volatile double x = 0;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 1000000; i++)
			x += i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while (b.tv_sec - a.tv_sec < s);
}

static void *late(void *arg)
{
	(void)arg;
	compute(3); /* and forgets to send */
	return NULL;
}

int main(int argc, char **argv)
{
	int provided, rank, v = 0;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	if (provided < MPI_THREAD_MULTIPLE) {
		MPI_Finalize(); /* the MPI cannot run this test; nothing to check */
		return 0;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		pthread_t t;
		pthread_create(&t, NULL, late, NULL);
		MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
		pthread_join(t, NULL);
	} else if (rank == 1) {
		MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
		MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
