/* MPI_THREAD_MULTIPLE: two threads of rank 0 each receive a message from
 * any source with the same tag; thread A assumes it gets rank 1's. Thread A
 * posts its receive before thread B posts its own, and rank 2 sends late,
 * so the first run gives A rank 1's message; exploring A's wildcard receive
 * (thread 1's event 0) forces it to rank 2's message and holds B's receive
 * back until A has matched, so that B takes rank 1's whatever the
 * scheduler does, and A's assert fails. (The other replay forces B to rank
 * 1's message with A forced to it too: infeasible.) thread_multiple_wildcard_tags_clean.c gives each
 * thread a tag of its own. The crash names thread A's last MPI call.
 * mpivet: np=3 verdict=error interleavings=3 infeasible=1 says=MPI_Wait(request
 */
#include <assert.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_barrier_t posted;

static void *thread_a(void *arg)
{
	int x = -1;
	MPI_Request r;
	MPI_Status st;
	(void)arg;
	MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &r);
	pthread_barrier_wait(&posted); /* B calls MPI only now: A is thread 1, B thread 2 */
	MPI_Wait(&r, &st);
	if (x != 1)
		fprintf(stderr, "thread A got rank %d's message, not rank 1's\n", x);
	assert(x == 1); // want "program-failure"
	return NULL;
}

static void *thread_b(void *arg)
{
	int x = -1;
	(void)arg;
	pthread_barrier_wait(&posted);
	MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
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
		MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
