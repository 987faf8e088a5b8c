/* A program with its own SIGSEGV handler (installed after MPI_Init, as
 * PETSc does) whose real crash, a NULL dereference on rank 1, reaches that
 * handler, which prints its message and calls MPI_Abort. It is reported as
 * the crash it is, at the dereference, with the handler's words; the
 * handler still ran (its message is there), and the layer's own faults on
 * the pages of the pending buffers before it never reached it.
 * mpivet: np=2 verdict=error says=Caught_signal_number_11
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)si, (void)uc;
	fprintf(stderr, "[1]PETSC-like ERROR: Caught_signal_number_%d SEGV: Segmentation Violation\n", sig);
	MPI_Abort(MPI_COMM_WORLD, 50);
}

static int *lookup(int key, int *table) { return key > 3 ? NULL : &table[key]; }

int main(int argc, char **argv)
{
	int rank, table[4] = {1, 2, 3, 4};
	double send[64], recv[64];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	MPI_Request r[2];
	for (int i = 0; i < 64; i++)
		send[i] = i + rank;
	MPI_Irecv(recv, 64, MPI_DOUBLE, 1 - rank, 0, MPI_COMM_WORLD, &r[0]);
	MPI_Isend(send, 64, MPI_DOUBLE, 1 - rank, 0, MPI_COMM_WORLD, &r[1]);
	double s = 0;
	for (int i = 0; i < 64; i++)
		s += send[i]; /* a pending send buffer, read: legal */
	MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	int v = 0;
	if (rank == 1)
		v = *lookup(7 + (int)(s < 0), table); // want "program-failure"
	MPI_Barrier(MPI_COMM_WORLD);
	printf("rank %d: %d %.0f\n", rank, v, s);
	MPI_Finalize();
	return 0;
}
