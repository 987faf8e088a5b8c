/* MPI_THREAD_FUNNELED, as in a hybrid code: while a receive is pending,
 * worker threads update the rest of the page its buffer lies in, many times
 * over, and the main thread polls MPI at the same time (the message is sent
 * only after the workers are done). Each worker's fault is handled on its
 * own thread, against the main thread's MPI calls. Only after the Wait do
 * the workers read the received values. No finding.
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define WORKERS 2
#define N 512

static double *a;

static void *update(void *arg)
{
	int id = *(int *)arg;
	for (int it = 0; it < 200; it++)
		for (int i = 64 + id; i < N; i += WORKERS)
			a[i] += 0.5 * i;
	return NULL;
}

static void *use(void *arg)
{
	int id = *(int *)arg;
	for (int i = id; i < 8; i += WORKERS)
		a[64 + i] += a[i];
	return NULL;
}

static pthread_t t[WORKERS];
static int ids[WORKERS];

static void start(void *(*f)(void *))
{
	for (int i = 0; i < WORKERS; i++) {
		ids[i] = i;
		pthread_create(&t[i], NULL, f, &ids[i]);
	}
}

static void join(void)
{
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	int provided, rank;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	a = calloc(N, sizeof *a);
	for (int round = 0; round < 3; round++) {
		if (rank == 0) {
			MPI_Request r;
			int flag = 0, go = round;
			MPI_Irecv(a, 8, MPI_DOUBLE, 1, round, MPI_COMM_WORLD, &r);
			start(update);
			for (int i = 0; i < 1000 && !flag; i++) /* MPI calls while the workers fault */
				MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
			join();
			MPI_Send(&go, 1, MPI_INT, 1, 100, MPI_COMM_WORLD);
			if (!flag)
				MPI_Wait(&r, MPI_STATUS_IGNORE);
			start(use);
			join();
		} else if (rank == 1) {
			double v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
			int go;
			MPI_Recv(&go, 1, MPI_INT, 0, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(v, 8, MPI_DOUBLE, 0, round, MPI_COMM_WORLD);
		}
	}
	if (rank == 0)
		printf("a[64] = %g\n", a[64]);
	free(a);
	MPI_Finalize();
	return 0;
}
