/* A correct ring exchange of 1 MiB messages (MPI_Irecv from the left, then
 * MPI_Send to the right, then MPI_Waitall), run with zero buffering. Rank 1
 * stops itself right before one MPI_Send, and later is stopped inside its
 * MPI_Waitall while rank 0, which computed a while first, blocks sending to
 * it; each stop lasts 3 s. Ranks wait on the stopped rank meanwhile, which
 * is no deadlock: no finding.
 * mpivet: np=3 flags=--buffering=zero verdict=ok
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
	int rank, size;
	char *out = malloc(N), *in = malloc(N);
	memset(out, 1, N);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	for (int it = 0; it < 8; it++) {
		MPI_Request r[1];
		MPI_Status st[1];
		MPI_Irecv(in, N, MPI_CHAR, left, 0, MPI_COMM_WORLD, &r[0]);
		if (it == 2 && rank == 1)
			stop_for(3, 0); /* stopped right before its send */
		if (it == 5 && rank == 1)
			stop_for(3, 150); /* stopped in MPI_Waitall: its send to rank 2 is done */
		if (it == 5 && rank == 0)
			compute(400); /* then blocks sending to the stopped rank 1 */
		MPI_Send(out, N, MPI_CHAR, right, 0, MPI_COMM_WORLD);
		MPI_Waitall(1, r, st);
	}
	MPI_Finalize();
	free(out);
	free(in);
	return 0;
}
