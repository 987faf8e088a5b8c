/* A program that asks for MPI_THREAD_MULTIPLE, as many do, and calls MPI
 * from its main thread only: its wildcard receives are explored as in a
 * single-threaded program. Rank 0 takes two messages from any source and
 * assumes rank 1's comes first; rank 2 sends late, so the run usually
 * matches rank 1 first and the replay of the other match fails.
 * mpivet: np=3 verdict=error interleavings=2
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, provided, x = 0;
	MPI_Status st;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (st.MPI_SOURCE != 1) {
			fprintf(stderr, "expected rank 1 first\n");
			abort(); // want "program-failure"
		}
	} else {
		if (rank == 2)
			usleep(200000);
		MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
