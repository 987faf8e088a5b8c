/* A correct ping-pong of small messages. Midway, rank 1 is stopped
 * (SIGSTOP) inside its MPI_Recv for 3 s, before it has taken rank 0's
 * message; rank 0's eager send completes, and rank 0 waits for the reply.
 * The records show two ranks each receiving from the other, a deadlock by
 * their calls alone; but the stopped rank never showed it was waiting (it
 * had no CPU), and would have taken the message: no finding.
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

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
	int rank, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int it = 0; it < 8; it++) {
		if (rank == 0) {
			if (it == 4)
				compute(300); /* rank 1 is in MPI_Recv, and stopped there */
			MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
			MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			if (it == 4)
				stop_for(3, 100);
			MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			x++;
			MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
		}
	}
	MPI_Finalize();
	return rank == 0 && x != 8;
}
