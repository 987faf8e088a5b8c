/* A correct program with its own SIGSEGV and SIGBUS handler (sigaction,
 * SA_SIGINFO), installed before MPI_Init (before the MPI installs its
 * own), that touches the pages of its pending buffers legally: it reads
 * its pending send buffers and writes other data on the same pages. The layer's faults on those
 * pages are its own: the program's handler, which would report a crash,
 * never runs, and the output is what it is natively.
 * mpivet: np=2 verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)si, (void)uc;
	char msg[64];
	int n = snprintf(msg, sizeof msg, "Caught signal number %d\n", sig);
	write(2, msg, (size_t)n);
	_exit(59);
}

struct cell {
	double send[8];
	double other[8]; /* the same page as both buffers */
	double recv[8];
};

int main(int argc, char **argv)
{
	int rank, size;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int peer = (rank + 1) % size, from = (rank + size - 1) % size;
	struct cell *c = calloc(1, sizeof *c);
	double s = 0;
	for (int it = 0; it < 20; it++) {
		MPI_Request r[2];
		for (int i = 0; i < 8; i++)
			c->send[i] = rank * 100 + it + i;
		MPI_Irecv(c->recv, 8, MPI_DOUBLE, from, it, MPI_COMM_WORLD, &r[0]);
		MPI_Isend(c->send, 8, MPI_DOUBLE, peer, it, MPI_COMM_WORLD, &r[1]);
		for (int i = 0; i < 8; i++)
			c->other[i] = c->send[i] * 2; /* reads a pending send buffer */
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
		for (int i = 0; i < 8; i++)
			s += c->recv[i] + c->other[i];
	}
	double all[64];
	MPI_Gather(&s, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	for (int i = 0; rank == 0 && i < size && i < 64; i++)
		printf("rank %d: sum %.1f\n", i, all[i]);
	free(c);
	MPI_Finalize();
	return 0;
}
