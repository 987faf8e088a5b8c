/* Polling loops over small pending receives and sends, as a
 * master-worker or an asynchronous solver polls: the polls that find
 * nothing run with the pending pages closed (the fast path of polls), and
 * the message that arrives during one of them is written by the MPI into
 * its closed page. Every message arrives intact, no finding.
 * mpivet: np=2 verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 500, ROUNDS = 20 };

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int partner = rank ^ 1, *in = aligned_alloc(4096, 4096), *out = aligned_alloc(4096, 4096);
	long polls = 0, bad = 0;
	for (int r = 0; r < ROUNDS; r++) {
		MPI_Request rq, sq = MPI_REQUEST_NULL;
		for (int i = 0; i < N; i++)
			out[i] = 1000 * r + rank + i;
		MPI_Irecv(in, N, MPI_INT, partner, r, MPI_COMM_WORLD, &rq);
		for (int i = 0, got = 0; i < 200 || !got; i++) {
			int flag;
			if (i == 100 - 50 * rank)
				MPI_Isend(out, N, MPI_INT, partner, r, MPI_COMM_WORLD, &sq);
			if (!got)
				MPI_Test(&rq, &got, MPI_STATUS_IGNORE);
			MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
			polls += 2;
		}
		MPI_Wait(&sq, MPI_STATUS_IGNORE);
		for (int i = 0; i < N; i++)
			bad += in[i] != 1000 * r + partner + i;
	}
	long all[2] = {polls, bad}, sums[2];
	MPI_Reduce(all, sums, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%d rounds, %s polls, %ld wrong\n", ROUNDS, sums[0] >= 4 * 200 * ROUNDS ? "all" : "missing", sums[1]);
	free(in);
	free(out);
	MPI_Finalize();
	return bad != 0;
}
