/* Messages a rank sends itself: a blocking send to a receive it posted
 * before, a synchronous one, a sendrecv with itself, and 300 nonblocking
 * sends before their receives. Correct; MPICH completes a send to self
 * only once it is received, so a layer that waits for its own message (the
 * clock protocol's piggyback: before the send, or when its buffer comes
 * round again after 256 sends) would hang here.
 * mpivet: np=1 verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>

enum { N = 300 };

int main(int argc, char **argv)
{
	int rank, in[4] = {0}, out[4] = {1, 2, 3, 4}, back[4] = {0}, many[N], got[N];
	MPI_Request r, s[N], q[N];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Irecv(in, 4, MPI_INT, rank, 7, MPI_COMM_WORLD, &r);
	MPI_Send(out, 4, MPI_INT, rank, 7, MPI_COMM_WORLD);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Irecv(in, 4, MPI_INT, rank, 8, MPI_COMM_WORLD, &r);
	MPI_Ssend(out, 4, MPI_INT, rank, 8, MPI_COMM_WORLD);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Sendrecv(out, 4, MPI_INT, rank, 9, back, 4, MPI_INT, rank, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	for (int i = 0; i < N; i++) {
		many[i] = i;
		MPI_Isend(&many[i], 1, MPI_INT, rank, 100 + i, MPI_COMM_WORLD, &s[i]);
	}
	for (int i = 0; i < N; i++)
		MPI_Irecv(&got[i], 1, MPI_INT, rank, 100 + i, MPI_COMM_WORLD, &q[i]);
	MPI_Waitall(N, q, MPI_STATUSES_IGNORE);
	MPI_Waitall(N, s, MPI_STATUSES_IGNORE);
	long total = 0;
	for (int i = 0; i < N; i++)
		total += got[i];
	printf("sum %d, %ld\n", in[0] + in[3] + back[1] + back[2], total);
	MPI_Finalize();
	return 0;
}
