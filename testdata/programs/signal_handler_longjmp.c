/* A correct program that recovers from faults it causes on purpose: it
 * probes whether an address is readable with a SIGSEGV handler that
 * siglongjmps out (as some runtimes probe memory), several times, between
 * nonblocking calls whose buffers are pending. Each probe of the
 * unreadable page reaches the program's handler and the program goes on;
 * the layer's faults on the pending buffers' pages never do.
 * mpivet: np=2 verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static sigjmp_buf probe_env;
static volatile int faults;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	faults++;
	siglongjmp(probe_env, 1);
}

static int readable(const volatile char *p)
{
	if (sigsetjmp(probe_env, 1))
		return 0;
	(void)*p;
	return 1;
}

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	char *hole = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct {
		double send[16], other[16], recv[16];
	} c;
	int ok = 0, bad = 0;
	for (int it = 0; it < 5; it++) {
		MPI_Request r[2];
		for (int i = 0; i < 16; i++)
			c.send[i] = it + i;
		MPI_Irecv(c.recv, 16, MPI_DOUBLE, 1 - rank, it, MPI_COMM_WORLD, &r[0]);
		MPI_Isend(c.send, 16, MPI_DOUBLE, 1 - rank, it, MPI_COMM_WORLD, &r[1]);
		ok += readable((char *)&c.other[3]);
		bad += !readable(hole);
		c.other[0] = c.send[1]; /* a pending send buffer, read */
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	}
	sigset_t m;
	sigprocmask(SIG_BLOCK, NULL, &m);
	int mine[5] = {ok, bad, faults, sigismember(&m, SIGSEGV), (int)c.recv[15]}, all[2][5];
	MPI_Gather(mine, 5, MPI_INT, all, 5, MPI_INT, 0, MPI_COMM_WORLD);
	for (int i = 0; rank == 0 && i < 2; i++)
		printf("rank %d: %d readable, %d not, %d faults, SIGSEGV blocked after: %d, last %d\n", i, all[i][0], all[i][1],
		       all[i][2], all[i][3], all[i][4]);
	MPI_Finalize();
	return 0;
}
