/* Rank 0 prints 1.4 MB of progress on its standard error, then why it
 * gives up, and calls abort(); rank 1 waits in a receive. The finding is at
 * the abort() line and quotes the message (past the first MiB, which is all
 * mpivet keeps of the beginning).
 * mpivet: np=2 verdict=error says=the_input_is_corrupt
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		for (int i = 0; i < 40000; i++)
			fprintf(stderr, "progress: record %d of the input\n", i);
		fprintf(stderr, "fatal: the_input_is_corrupt (record 17)\n");
		abort(); // want "program-failure"
	}
	MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
