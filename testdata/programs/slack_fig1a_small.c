/* Seed 001, Fig. 1(a), with 4-byte messages (sent eagerly by both MPIs).
 * Without buffering, rank 1's send must match rank 2's wildcard receive:
 * rank 0 sends to rank 2 only after its first send completed, which needs
 * rank 1's receive, which comes after rank 1's own send completed. When
 * rank 0's first send is buffered, its second can take the wildcard
 * receive instead, and rank 2's receive from rank 0 then waits forever: a
 * deadlock that needs buffering, which the buffering-aware exploration
 * finds by replaying with exactly that send buffered, whatever the MPI's
 * eager limit does: rank 0 starts late, so that the run itself matches rank
 * 1's message.
 * mpivet: np=3 verdict=error says=buffered
 */
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

#define N 4

int main(int argc, char **argv)
{
	int rank;
	char *a = calloc(N, 1), *b = calloc(N, 1);
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		usleep(200000);
		MPI_Isend(a, N, MPI_CHAR, 1, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		MPI_Isend(b, N, MPI_CHAR, 2, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
	} else if (rank == 1) {
		MPI_Isend(a, N, MPI_CHAR, 2, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		MPI_Irecv(b, N, MPI_CHAR, 0, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
	} else {
		MPI_Irecv(a, N, MPI_CHAR, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		MPI_Irecv(b, N, MPI_CHAR, 0, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE); // want "deadlock"
	}
	MPI_Finalize(); // want "deadlock"
	free(a);
	free(b);
	return 0;
}
