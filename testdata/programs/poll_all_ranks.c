/* Every rank polls (MPI_Testany, MPI_Test, MPI_Iprobe) for its left
 * neighbour's message for a second before sending its own to the right,
 * then polls for both to complete: correct, since polling never waits.
 * While they poll, a timer makes each rank compute for 2.5 s in its signal
 * handler, once it interrupts the rank inside the MPI library, in whatever
 * call the rank is polling with: no MPI call completes, and every rank
 * sits, running, in a nonblocking call. No finding. (The buffer checker is off: it is not what is tested,
 * and a signal handler running while it single-steps an access can kill the
 * rank with SIGTRAP.)
 * mpivet: np=2 flags=--buffers=off verdict=ok
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile sig_atomic_t aiming; /* the timer fired outside the MPI library */
static pid_t main_thread;
static int in = -1;

/* in_mpi reports whether the interrupted instruction is in the MPI library
 * itself (not in the program, libc, or an interposition layer). */
static int in_mpi(void *ucontext)
{
	Dl_info d;
	void *pc = (void *)((ucontext_t *)ucontext)->uc_mcontext.gregs[REG_RIP];
	if (!dladdr(pc, &d) || !d.dli_fname || strstr(d.dli_fname, "mpivet"))
		return 0;
	static const char *const mpi[] = {"libmpi", "mpich", "openmpi", "libopen-", "libfabric", "libuc"};
	for (size_t i = 0; i < sizeof mpi / sizeof mpi[0]; i++)
		if (strstr(d.dli_fname, mpi[i]))
			return 1;
	return 0;
}

/* busy computes for 2.5 s inside the polling call the timer interrupted,
 * once it interrupts the rank in the MPI library (tried again every 0.1 ms,
 * the rank polling without pause meanwhile). */
static void busy(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	if (gettid() != main_thread) { /* the MPI's own threads may get it */
		tgkill(getpid(), main_thread, sig);
		return;
	}
	if (!in_mpi(uc)) {
		struct itimerval again = {{0, 0}, {0, 100}};
		aiming = 1;
		setitimer(ITIMER_REAL, &again, NULL);
		return;
	}
	aiming = 0;
	double t0 = now();
	while (now() - t0 < 2.5)
		;
}

/* pause_poll paces the polling loops (a few thousand calls a second), but
 * not while the timer is being aimed at a polling call. */
static void pause_poll(void)
{
	if (!aiming)
		usleep(200);
}

int main(int argc, char **argv)
{
	int rank, size, out, flag = 0, idx;
	MPI_Request r[2];
	MPI_Status st[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	out = rank;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	main_thread = gettid();
	sa.sa_sigaction = busy;
	sa.sa_flags = SA_RESTART | SA_SIGINFO;
	sigaction(SIGALRM, &sa, NULL);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Irecv(&in, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &r[0]);
	struct itimerval it = {{0, 0}, {0, 300000}};
	setitimer(ITIMER_REAL, &it, NULL);
	for (double t0 = now(); now() - t0 < 1.0;) {
		MPI_Testany(1, r, &idx, &flag, MPI_STATUS_IGNORE);
		MPI_Iprobe(left, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
		pause_poll();
	}
	MPI_Isend(&out, 1, MPI_INT, right, 0, MPI_COMM_WORLD, &r[1]);
	for (int done = 0; !done;) {
		MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
		MPI_Testall(2, r, &done, st);
		pause_poll();
	}
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	MPI_Finalize();
	return in != left;
}
