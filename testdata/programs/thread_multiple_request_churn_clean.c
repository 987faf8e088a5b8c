/* MPI_THREAD_MULTIPLE: on each of two ranks, 8 threads exchange with the
 * other rank over and over, each thread with its own tag, each round a
 * nonblocking send and receive completed by MPI_Waitall, MPI_Testall,
 * MPI_Test or MPI_Wait in turn (none of which chooses among requests: one
 * interleaving). Request handles are freed and reused
 * all the time: a handle one thread's completion call frees may be
 * another thread's new request before the first thread's call returns,
 * which mpivet must not confuse. Correct: no finding.
 * mpivet: np=2 verdict=ok interleavings=1 timeout=90s
 */
#include <mpi.h>
#include <pthread.h>

#define THREADS 8
#define ROUNDS 60

static int rank;

/* complete finishes the two requests of a round, by the call round picks. */
static void complete(MPI_Request rq[2], int round)
{
	MPI_Status st[2];
	int flag = 0;
	switch (round % 4) {
	case 0:
		MPI_Waitall(2, rq, st);
		break;
	case 1:
		while (!flag)
			MPI_Testall(2, rq, &flag, st);
		break;
	case 2:
		for (int i = 0; i < 2; i++)
			for (flag = 0; !flag;)
				MPI_Test(&rq[i], &flag, &st[i]);
		break;
	default:
		MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
		MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
	}
}

static void *worker(void *arg)
{
	int tag = (int)(long)arg, peer = 1 - rank;
	for (int i = 0; i < ROUNDS; i++) {
		int out = i, in = -1;
		MPI_Request rq[2];
		MPI_Irecv(&in, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &rq[0]);
		MPI_Isend(&out, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &rq[1]);
		complete(rq, i);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int provided;
	pthread_t t[THREADS];
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	if (provided < MPI_THREAD_MULTIPLE) {
		MPI_Finalize(); /* the MPI cannot run this test; nothing to check */
		return 0;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	MPI_Finalize();
	return 0;
}
