/* MPI_THREAD_FUNNELED, as in a hybrid code: the main thread calls MPI while
 * worker threads compute. Their faults on the pages of pending buffers are
 * handled on their own threads (the buffer checker's lock taken from a
 * thread that does not call MPI). The workers first write memory that
 * shares a page with a pending receive buffer, which is legal, while the
 * main thread polls MPI; then one worker writes into the pending receive
 * buffer itself, before the Wait: that write is reported at its line.
 * (clean_buffers_funneled.c loops over the shared page.)
 * Under --buffers=precise, so that the line does not depend on the load of
 * the machine (by default the single-step budget is a share of the run).
 * mpivet: np=2 verdict=error flags=--buffers=precise
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define WORKERS 2
#define N 512

static double *a;
static volatile int phase;

static void *work(void *arg)
{
	int id = *(int *)arg;
	a[64 + id] = id; /* shares a page with the receive */
	while (phase == 0)
		;
	if (id == 1)
		a[2] = -1; // want "buffer-reuse"
	return NULL;
}

int main(int argc, char **argv)
{
	int provided, rank;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	a = calloc(N, sizeof *a);
	if (rank == 0) {
		MPI_Request r, other;
		int token = 0, flag = 0;
		MPI_Irecv(a, 8, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &r); // want "buffer-reuse"
		MPI_Irecv(&token, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &other);
		pthread_t t[WORKERS];
		int ids[WORKERS];
		for (int i = 0; i < WORKERS; i++) {
			ids[i] = i;
			pthread_create(&t[i], NULL, work, &ids[i]);
		}
		for (int i = 0; i < 2000 && !flag; i++) /* MPI calls while the workers fault */
			MPI_Test(&other, &flag, MPI_STATUS_IGNORE);
		if (!flag)
			MPI_Wait(&other, MPI_STATUS_IGNORE);
		phase = 1;
		for (int i = 0; i < WORKERS; i++)
			pthread_join(t[i], NULL);
		MPI_Wait(&r, MPI_STATUS_IGNORE); // want "buffer-reuse"
		printf("a[0] = %g\n", a[0]);
	} else if (rank == 1) {
		double v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
		int token = 1;
		MPI_Send(&token, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
		MPI_Send(v, 8, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
	}
	free(a);
	MPI_Finalize();
	return 0;
}
