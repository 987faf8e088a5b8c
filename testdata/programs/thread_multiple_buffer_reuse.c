/* MPI_THREAD_MULTIPLE: a worker thread of each rank starts a send (rank 0)
 * or a receive (rank 1) and completes it once the main thread, which also
 * calls MPI, has written the pending send buffer (rank 0) or read the
 * pending receive buffer (rank 1). Both threads call MPI, so the clock
 * protocol runs for both, and each access is reported at its line, in
 * the thread that made it. Under --buffers=precise, so that the lines do not
 * depend on the load of the machine.
 * mpivet: np=2 verdict=error flags=--buffers=precise
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 8

static int rank;
static double *a;
static pthread_barrier_t started, touched;

static void *worker(void *arg)
{
	MPI_Request r;
	(void)arg;
	if (rank == 0)
		MPI_Isend(a, N, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &r); // want "buffer-reuse"
	else
		MPI_Irecv(a, N, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &r); // want "buffer-reuse"
	pthread_barrier_wait(&started);
	pthread_barrier_wait(&touched);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	return NULL;
}

int main(int argc, char **argv)
{
	int provided;
	double seen = 0;
	pthread_t t;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	if (provided < MPI_THREAD_MULTIPLE) {
		MPI_Finalize(); /* the MPI cannot run this test; nothing to check */
		return 0;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	a = calloc(1024, sizeof *a);
	pthread_barrier_init(&started, NULL, 2);
	pthread_barrier_init(&touched, NULL, 2);
	pthread_create(&t, NULL, worker, NULL);
	pthread_barrier_wait(&started);
	if (rank == 0)
		a[1] = 42; // want "buffer-reuse"
	else
		seen = a[1]; // want "buffer-reuse"
	pthread_barrier_wait(&touched);
	pthread_join(t, NULL);
	MPI_Barrier(MPI_COMM_WORLD);
	printf("%g\n", seen);
	free(a);
	MPI_Finalize();
	return 0;
}
