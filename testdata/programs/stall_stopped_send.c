/* A correct exchange of rendezvous-size messages (1 MiB, above both MPIs'
 * eager limits): every rank posts its MPI_Irecv, then MPI_Sends, then
 * waits. Midway, rank 0 computes for a while, so rank 1 blocks in its
 * MPI_Send; rank 1 is then stopped there (SIGSTOP) for 3 s, and rank 0
 * blocks in its own MPI_Send to the stopped rank. Both ranks sit in MPI_Send
 * with no call completing, which looks like head-to-head sends, but each
 * send's receive is posted and a stopped rank is no evidence of a deadlock:
 * no finding (the default run includes the zero-buffering run, stopped the
 * same way).
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define N (1 << 20)

/* stop_for stops this process (SIGSTOP) for secs seconds: at once if
 * delay_ms is 0, else after delay_ms, wherever it is by then (a child
 * process stops and continues it). */
static void stop_for(int secs, int delay_ms)
{
	pid_t parent = getpid();
	if (fork() == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (delay_ms > 0) {
			usleep(delay_ms * 1000);
			if (getppid() == parent)
				kill(parent, SIGSTOP);
		}
		sleep(secs);
		if (getppid() == parent)
			kill(parent, SIGCONT);
		_exit(0);
	}
	if (delay_ms == 0)
		raise(SIGSTOP);
}

static void compute(int ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv)
{
	int rank;
	char *out = malloc(N), *in = malloc(N);
	memset(out, 1, N);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int peer = 1 - rank;
	for (int it = 0; it < 8; it++) {
		MPI_Request r;
		MPI_Irecv(in, N, MPI_CHAR, peer, 0, MPI_COMM_WORLD, &r);
		if (it == 4 && rank == 1)
			stop_for(3, 100);
		if (it == 4 && rank == 0)
			compute(300);
		MPI_Send(out, N, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	free(out);
	free(in);
	return 0;
}
