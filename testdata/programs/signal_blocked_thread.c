/* A correct program whose threads block SIGSEGV (pthread_sigmask in a
 * worker thread, sigprocmask in the main one) while they touch the pages of
 * pending buffers legally (reading pending send buffers, writing other data
 * on the same pages). The kernel would kill a thread that faults on a
 * blocked SIGSEGV: the layer's faults must still be its own, and the masks
 * the program reads back are the ones it set.
 * mpivet: np=2 verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

struct cell {
	double send[32], other[32], recv[32];
};

static struct cell c;

static void *worker(void *arg)
{
	sigset_t m, back;
	sigemptyset(&m);
	sigaddset(&m, SIGSEGV);
	sigaddset(&m, SIGBUS);
	pthread_sigmask(SIG_BLOCK, &m, NULL);
	double s = 0;
	for (int i = 0; i < 32; i++) {
		s += c.send[i];        /* a pending send buffer, read */
		c.other[i] = s;        /* other data on its page */
	}
	pthread_sigmask(SIG_BLOCK, NULL, &back);
	*(int *)arg = sigismember(&back, SIGSEGV) && sigismember(&back, SIGBUS);
	return NULL;
}

int main(int argc, char **argv)
{
	int rank, provided;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	sigset_t m, back;
	sigemptyset(&m);
	sigaddset(&m, SIGSEGV);
	sigprocmask(SIG_BLOCK, &m, NULL);
	int worker_blocked = 0;
	double t = 0;
	for (int it = 0; it < 10; it++) {
		MPI_Request r[2];
		for (int i = 0; i < 32; i++)
			c.send[i] = it * i;
		MPI_Irecv(c.recv, 32, MPI_DOUBLE, 1 - rank, it, MPI_COMM_WORLD, &r[0]);
		MPI_Isend(c.send, 32, MPI_DOUBLE, 1 - rank, it, MPI_COMM_WORLD, &r[1]);
		pthread_t th;
		pthread_create(&th, NULL, worker, &worker_blocked);
		for (int i = 0; i < 32; i++)
			t += c.send[i]; /* the main thread reads it too */
		pthread_join(th, NULL);
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
		t += c.recv[31] + c.other[31];
	}
	sigprocmask(SIG_BLOCK, NULL, &back);
	int mine[3] = {(int)t, sigismember(&back, SIGSEGV), worker_blocked}, all[2][3];
	MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, 0, MPI_COMM_WORLD);
	for (int i = 0; rank == 0 && i < 2; i++)
		printf("rank %d: %d, main blocks SIGSEGV: %d, worker blocked SIGSEGV and SIGBUS: %d\n", i, all[i][0], all[i][1],
		       all[i][2]);
	MPI_Finalize();
	return 0;
}
