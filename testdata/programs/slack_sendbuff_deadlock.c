/* A sendbuff variant with a deadlock that needs buffering: rank 3 takes
 * three messages from anyone and, when rank 0's came first, waits for a
 * second one from rank 0, which never comes. Without buffering, rank 0's
 * message cannot come first: rank 0 sends to rank 3 only after its send to
 * rank 1 completed, which needs rank 1's receive, posted after rank 1's
 * send to rank 3 completed. With rank 0's first send buffered it can: the
 * exploration replays that matching with exactly that send buffered. Rank
 * 2's send is synchronous, never buffered. The test TestSlackExhaustive
 * compares this exploration with the union of explorations under every
 * subset of the standard sends buffered.
 * mpivet: np=4 verdict=error says=buffered
 */
#include <mpi.h>
#include <stdlib.h>

#define N (1 << 20)

int main(int argc, char **argv)
{
	int rank;
	char *a = calloc(N, 1), *b = calloc(N, 1);
	MPI_Request r;
	MPI_Status st;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Isend(a, N, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		MPI_Isend(b, N, MPI_CHAR, 3, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
	} else if (rank == 1) {
		MPI_Send(a, N, MPI_CHAR, 3, 0, MPI_COMM_WORLD);
		MPI_Recv(b, N, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else if (rank == 2) {
		MPI_Ssend(a, N, MPI_CHAR, 3, 0, MPI_COMM_WORLD);
	} else {
		MPI_Recv(a, N, MPI_CHAR, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
		int first = st.MPI_SOURCE;
		MPI_Recv(a, N, MPI_CHAR, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(a, N, MPI_CHAR, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (first == 0)
			MPI_Recv(a, N, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
	}
	MPI_Finalize(); // want "deadlock"
	free(a);
	free(b);
	return 0;
}
