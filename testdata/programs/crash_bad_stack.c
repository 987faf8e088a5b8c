/* A crash whose stack cannot be unwound: rank 0 points its stack and frame
 * pointers at an unmapped page and writes there (the program gives the signal an
 * alternate stack to run on, as programs with such code must). mpivet's
 * crash handler records the faulting instruction before it unwinds, and
 * the unwinder, reading the return address at that stack pointer, faults
 * in the handler: that second fault must end the rank by the first signal
 * with the first record kept, not recurse in the handler until the
 * alternate stack runs out, which lost the report.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>

#if !defined(__x86_64__)
#error "x86-64 assembly"
#endif

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	stack_t ss = {.ss_sp = malloc(1 << 16), .ss_size = 1 << 16, .ss_flags = 0};
	sigaltstack(&ss, NULL);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		__asm__ volatile("mov $0x1000, %%rsp\n\tmov $0x1000, %%rbp\n\tmovq $0, (%%rsp)" ::: "memory"); // want "program-failure"
	}
	MPI_Finalize();
	return 0;
}
