/* Seed 001, Fig. 1(a), with 1 MiB messages (a rendezvous in both MPIs).
 * Without buffering, rank 1's send must match rank 2's wildcard receive:
 * rank 0 sends to rank 2 only after its first send completed, which needs
 * rank 1's receive, which comes after rank 1's own send completed. When
 * rank 0's first send is buffered, its second can take the wildcard
 * receive instead, and rank 2's receive from rank 0 then waits forever: a
 * deadlock that needs buffering, which the buffering-aware exploration
 * finds by replaying with exactly that send buffered.
 * mpivet: np=3 verdict=error says=buffered
 */
#include <mpi.h>
#include <stdlib.h>

#define N (1 << 20)

int main(int argc, char **argv)
{
	int rank;
	char *a = calloc(N, 1), *b = calloc(N, 1);
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Isend(a, N, MPI_CHAR, 1, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		MPI_Isend(b, N, MPI_CHAR, 2, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
	} else if (rank == 1) {
		MPI_Isend(a, N, MPI_CHAR, 2, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE); // want "deadlock"
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
