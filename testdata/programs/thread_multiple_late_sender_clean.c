/* MPI_THREAD_MULTIPLE: rank 0's main thread receives from rank 1, which
 * first waits for rank 0's message; that message is sent by a second
 * thread of rank 0 that computes for 3 s (longer than the stall delay)
 * before its first MPI call. Meanwhile every thread that has called MPI is
 * blocked in it, but rank 0's other thread runs: the rank may still act,
 * and the run is no deadlock. thread_multiple_late_sender_deadlock.c has
 * the thread end without sending. The zero-buffering run is left out: it
 * would run the 3 s again (the records of a rank whose calls came from
 * two threads are not replayed offline).
 * mpivet: np=2 verdict=ok flags=--buffering-check=off
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
	int v = 7;
	(void)arg;
	compute(3);
	MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
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
		MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		pthread_join(t, NULL);
	} else if (rank == 1) {
		MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
