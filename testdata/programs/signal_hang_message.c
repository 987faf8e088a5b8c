/* Rank 1's real crash (a NULL dereference) reaches its own SIGSEGV handler,
 * which prints its message and then never returns (a handler that waits
 * for a debugger to attach, as some libraries offer); rank 0 waits for it
 * in a barrier. The run ends at its time limit, and the timeout finding
 * quotes what the rank said and where it crashed.
 * mpivet: np=2 timeout=5s verdict=error says=Caught_signal_number_11
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void on_fault(int sig)
{
	char msg[96];
	int n = snprintf(msg, sizeof msg, "[1]ERROR: Caught_signal_number_%d SEGV: waiting for a debugger\n", sig);
	write(2, msg, (size_t)n);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv); // want "timeout"
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	signal(SIGSEGV, on_fault);
	volatile int *p = NULL;
	if (rank == 1)
		*p = 1; // want "timeout"
	MPI_Barrier(MPI_COMM_WORLD); // want "timeout"
	MPI_Finalize();
	return 0;
}
