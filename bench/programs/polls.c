/* A polling-heavy exchange, like HPCC's RandomAccess: each rank posts a
 * receive from its partner, sends to it halfway through a round, and polls
 * all along with MPI_Testany (over the receive and the send) and MPI_Iprobe
 * (for a tag never sent), and once per round tests the completed (null)
 * requests. Almost every poll finds nothing; two Testany per round
 * complete a request.
 * Usage: polls [rounds] [polls-per-round]. Prints (rank 0): RESULT
 * poll_ns=<time per poll> polls=<polls made> completed=<requests Testany
 * completed> bad=<received integers that differ from what was sent>.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 100, per = argc > 2 ? atoi(argv[2]) : 10000;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int partner = rank ^ 1;
	if (partner >= size)
		partner = MPI_PROC_NULL;
	long polls = 0, done = 0, bad = 0;
	/* Buffers of their own pages, as the arrays of most programs are: a
	 * small buffer on a page with the MPI's own data would measure the
	 * buffer checker's faults on that page instead of polling. Messages
	 * of 4000 bytes: Open MPI copies larger ones with the kernel. */
	enum { N = 1000 };
	int *in = aligned_alloc(4096, 4096), *out = aligned_alloc(4096, 4096);
	for (int i = 0; i < N; i++)
		out[i] = rank + i;
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	for (int r = 0; r < rounds; r++) {
		MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
		MPI_Irecv(in, N, MPI_INT, partner, 1, MPI_COMM_WORLD, &reqs[0]);
		for (int i = 0; i < per; i++) {
			int idx, flag;
			if (i == per / 2)
				MPI_Isend(out, N, MPI_INT, partner, 1, MPI_COMM_WORLD, &reqs[1]);
			MPI_Testany(2, reqs, &idx, &flag, MPI_STATUS_IGNORE);
			if (flag && idx != MPI_UNDEFINED)
				done++;
			MPI_Iprobe(MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
			polls += 2;
		}
		MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
		/* polls of requests long completed: they say nothing either */
		int flag;
		MPI_Test(&reqs[0], &flag, MPI_STATUS_IGNORE);
		MPI_Testall(2, reqs, &flag, MPI_STATUSES_IGNORE);
		MPI_Request_get_status(reqs[1], &flag, MPI_STATUS_IGNORE);
		polls += 3;
		for (int i = 0; partner != MPI_PROC_NULL && i < N; i++)
			bad += in[i] != partner + i;
	}
	double t = MPI_Wtime() - t0;
	if (rank == 0)
		printf("RESULT poll_ns=%.2f polls=%ld completed=%ld bad=%ld\n", t / polls * 1e9, polls, done, bad);
	free(in);
	free(out);
	MPI_Finalize();
	return 0;
}
