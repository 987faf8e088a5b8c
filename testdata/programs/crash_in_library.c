/* Rank 1 passes a bad pointer to strlen, in a function called from main:
 * the fault is inside the C library, which has no line information. The
 * finding is at the program's line that called strlen, and its caller's
 * line is shown too; not at the last MPI call.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static size_t label_length(const char *label)
{
	return strlen(label); // want "program-failure"
}

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	const char *label = rank == 1 ? (const char *)24 : "rank";
	size_t n = label_length(label); // want "program-failure"
	MPI_Barrier(MPI_COMM_WORLD);
	printf("%zu\n", n);
	MPI_Finalize();
	return 0;
}
