/* MPI_THREAD_MULTIPLE: two threads of rank 0 each probe for a message from
 * rank 1 (same source and tag), then receive it. Both probes come before
 * either receive (a barrier of the threads makes sure of it here), so both
 * may have probed the same message, which only one receive gets: the
 * pattern is reported at the probe, with the advice to use MPI_Mprobe.
 * (thread_multiple_mprobe_clean.c does so.) The two receives compete for
 * rank 1's messages: where they overlapped, each is replayed held back
 * until the other has matched (3 interleavings; 1 where they did not).
 * mpivet: np=2 verdict=error atmost=3
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static pthread_barrier_t both;

static void *take(void *arg)
{
	int n = 0, x = -1;
	MPI_Status st;
	(void)arg;
	MPI_Probe(1, 0, MPI_COMM_WORLD, &st); // want "thread-sharing"
	pthread_barrier_wait(&both);
	MPI_Get_count(&st, MPI_INT, &n);
	MPI_Recv(&x, 1, MPI_INT, st.MPI_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	printf("got %d (%d)\n", x, n);
	return NULL;
}

int main(int argc, char **argv)
{
	int provided, rank;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	if (provided < MPI_THREAD_MULTIPLE) {
		MPI_Finalize(); /* the MPI cannot run this test; nothing to check */
		return 0;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		pthread_t t[2];
		pthread_barrier_init(&both, NULL, 2);
		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, take, NULL);
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&both);
	} else {
		int v[2] = {0, 1};
		MPI_Request r[2];
		for (int i = 0; i < 2; i++) /* both sent at once: the probes need not wait */
			MPI_Isend(&v[i], 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r[i]);
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	}
	MPI_Finalize();
	return 0;
}
