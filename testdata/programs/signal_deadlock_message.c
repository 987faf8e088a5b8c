/* Rank 1's real crash (a write through NULL) reaches its own SIGSEGV
 * handler, which prints its message and then waits in MPI for a word from
 * rank 0 that never comes (as a handler that calls MPI_Abort may block in
 * it); rank 0 waits in a receive from rank 1. The deadlock finding quotes
 * what rank 1 said and where its handler caught the crash.
 * mpivet: np=2 verdict=error says=Caught_signal_number_11
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static void on_fault(int sig)
{
	int word;
	fprintf(stderr, "[1]ERROR: Caught_signal_number_%d SEGV: asking rank 0 what to do\n", sig);
	MPI_Recv(&word, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
}

int main(int argc, char **argv)
{
	int rank, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	signal(SIGSEGV, on_fault);
	volatile int *p = rank == 1 ? NULL : &x;
	*p = 1; // want "deadlock"
	if (rank == 0)
		MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
	MPI_Finalize();
	return 0;
}
