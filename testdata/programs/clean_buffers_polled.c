/* Polling loops over pending receives and sends, as a master-worker or an
 * asynchronous solver polls: the polls that find nothing run with the
 * pending pages closed (the fast path of polls), and the message that
 * arrives during one of them is written into its closed page, by the MPI's
 * own copy (2 KB messages) or by the kernel's cross-memory copy of the
 * shared-memory transport (64 KB: Open MPI's vader, UCX's cma), which the
 * layer must see coming. Every message arrives intact, no finding.
 * mpivet: np=2 verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { ROUNDS = 10, MAXN = 16384 };

int main(int argc, char **argv)
{
	int rank, sizes[2] = {500, MAXN};
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int partner = rank ^ 1, *in = aligned_alloc(4096, MAXN * sizeof(int)), *out = aligned_alloc(4096, MAXN * sizeof(int));
	long polls = 0, bad = 0;
	for (int r = 0; r < 2 * ROUNDS; r++) {
		int n = sizes[r / ROUNDS];
		MPI_Request rq, sq = MPI_REQUEST_NULL;
		for (int i = 0; i < n; i++)
			out[i] = 1000 * r + rank + i;
		MPI_Irecv(in, n, MPI_INT, partner, r, MPI_COMM_WORLD, &rq);
		for (int i = 0, got = 0; i < 200 || !got; i++) {
			int flag;
			if (i == 100 - 50 * rank)
				MPI_Isend(out, n, MPI_INT, partner, r, MPI_COMM_WORLD, &sq);
			if (!got)
				MPI_Test(&rq, &got, MPI_STATUS_IGNORE);
			MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
			polls += 2;
		}
		MPI_Wait(&sq, MPI_STATUS_IGNORE);
		for (int i = 0; i < n; i++)
			bad += in[i] != 1000 * r + partner + i;
	}
	long all[2] = {polls, bad}, sums[2];
	MPI_Reduce(all, sums, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%d rounds, %s polls, %ld wrong\n", 2 * ROUNDS, sums[0] >= 4 * 200 * 2 * ROUNDS ? "all" : "missing", sums[1]);
	free(in);
	free(out);
	MPI_Finalize();
	return bad != 0;
}
