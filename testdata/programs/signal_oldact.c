/* A correct program that checks what the signal calls give back: the
 * handler, flags and mask it installed for SIGSEGV, SIGBUS, SIGFPE and
 * SIGABRT (sigaction's oldact, signal's and sigset's return values), its
 * SIG_IGN and SIG_DFL, and a handler of another signal whose sa_mask holds
 * SIGSEGV; never the layer's handler. Then it touches pending buffers'
 * pages, which must not reach its handlers either.
 * mpivet: np=2 verdict=ok sameoutput=1
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void h1(int sig, siginfo_t *si, void *uc) { (void)sig, (void)si, (void)uc; _exit(61); }
static void h2(int sig) { (void)sig; _exit(62); }

static int rank, nchecks, oks[32];
static const char *names[32];

/* check notes a check; report prints, on rank 0, those that held on every rank */
static void check(const char *what, int ok) { names[nchecks] = what, oks[nchecks++] = ok; }

static void report(void)
{
	int all[32];
	MPI_Reduce(oks, all, nchecks, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
	for (int i = 0; rank == 0 && i < nchecks; i++)
		printf("%s: %s\n", names[i], all[i] ? "ok" : "WRONG");
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	struct sigaction a, o;
	memset(&a, 0, sizeof a);
	a.sa_sigaction = h1;
	a.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&a.sa_mask);
	sigaddset(&a.sa_mask, SIGUSR1);
	sigaction(SIGSEGV, &a, NULL);
	sigaction(SIGSEGV, NULL, &o);
	check("SIGSEGV handler", o.sa_sigaction == h1 && (o.sa_flags & SA_SIGINFO) && (o.sa_flags & SA_RESTART));
	check("SIGSEGV mask", sigismember(&o.sa_mask, SIGUSR1) == 1 && sigismember(&o.sa_mask, SIGUSR2) == 0);
	check("signal returns it", signal(SIGSEGV, h2) == (void (*)(int))h1);
	check("then signal's", signal(SIGSEGV, SIG_DFL) == h2);
	sigaction(SIGSEGV, NULL, &o);
	check("SIG_DFL", o.sa_handler == SIG_DFL);
	check("SIG_IGN on SIGFPE", signal(SIGFPE, SIG_IGN) != SIG_ERR && signal(SIGFPE, h2) == SIG_IGN);
	check("sigset on SIGABRT", sigset(SIGABRT, h2) != SIG_ERR && sigset(SIGABRT, SIG_DFL) == h2);
	struct sigaction q;
	sigaction(SIGBUS, NULL, &q); /* the MPI's handler, or the default */
	sigaction(SIGBUS, &a, &o);
	check("SIGBUS's oldact is what it was", o.sa_handler == q.sa_handler && o.sa_flags == q.sa_flags);
	sigaction(SIGBUS, &o, NULL);
	a.sa_handler = h2;
	a.sa_flags = 0;
	sigfillset(&a.sa_mask);
	sigaction(SIGUSR2, &a, NULL);
	sigaction(SIGUSR2, NULL, &o);
	check("SIGUSR2's mask holds SIGSEGV", o.sa_handler == h2 && sigismember(&o.sa_mask, SIGSEGV) == 1);
	sigaction(SIGSEGV, &a, NULL); /* h2 for every fault from here on */
	double send[64], recv[64], sum = 0;
	for (int it = 0; it < 10; it++) {
		MPI_Request r[2];
		for (int i = 0; i < 64; i++)
			send[i] = it + i;
		MPI_Irecv(recv, 64, MPI_DOUBLE, 1 - rank, it, MPI_COMM_WORLD, &r[0]);
		MPI_Isend(send, 64, MPI_DOUBLE, 1 - rank, it, MPI_COMM_WORLD, &r[1]);
		for (int i = 0; i < 64; i++)
			sum += send[i];
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
		sum += recv[63];
	}
	sigaction(SIGSEGV, NULL, &o);
	check("SIGSEGV handler after the run", o.sa_handler == h2);
	check("the messages", sum == 23715);
	report();
	MPI_Finalize();
	return 0;
}
