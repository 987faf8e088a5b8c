/* Rings of MPI_Sendrecv in which rank 0 is slow to join: it computes
 * outside MPI, polls with MPI_Iprobe, then with MPI_Test, for 2.5 s each
 * (longer than the deadlock detector's 1.5 s), with small (eager) and large
 * (rendezvous) messages, and MPI_Sendrecv_replace. Correct even with zero
 * buffering: every Sendrecv's receive half takes what the previous rank
 * sends. The wait-for model once took the send half of a Sendrecv whose
 * eager message was delivered for still waiting: rank 2 completed its
 * Sendrecv (its send to rank 0 buffered) and went on to the Allreduce,
 * while rank 1, still receiving from rank 0, was taken as waiting for
 * rank 2 too: a false deadlock of ranks 1 and 2 (deadlock_sendrecv_stall.c
 * and unsafe_sendrecv_stall.c are the buggy twins).
 * mpivet: np=3 verdict=ok
 */
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

#define LARGE (1 << 18) /* ints: 1 MiB, above both MPIs' eager limits */

static void stall(int rank, int how)
{
	if (rank != 0)
		return;
	double t0 = MPI_Wtime();
	int flag = 0, x = 0, y = 0;
	MPI_Request r;
	switch (how) {
	case 0: /* outside MPI */
		usleep(2500000);
		break;
	case 1: /* polling for a message that does not come */
		while (MPI_Wtime() - t0 < 2.5)
			MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
		break;
	case 2: /* testing a receive that only rank 0 itself satisfies, later */
		MPI_Irecv(&y, 1, MPI_INT, 0, 98, MPI_COMM_WORLD, &r);
		while (MPI_Wtime() - t0 < 2.5)
			MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
		MPI_Send(&x, 1, MPI_INT, 0, 98, MPI_COMM_WORLD);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		break;
	}
}

int main(int argc, char **argv)
{
	int rank, size, sum;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	int *out = malloc(LARGE * sizeof(int)), *in = malloc(LARGE * sizeof(int));
	for (int round = 0; round < 4; round++) {
		int n = round == 3 ? LARGE : 1;
		out[0] = rank;
		in[0] = -1;
		stall(rank, round % 3);
		if (round == 1) {
			in[0] = rank;
			MPI_Sendrecv_replace(in, 1, MPI_INT, next, 1, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Sendrecv(out, n, MPI_INT, next, round, in, n, MPI_INT, prev, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		}
		if (in[0] != prev)
			MPI_Abort(MPI_COMM_WORLD, 3);
		MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	}
	free(out);
	free(in);
	MPI_Finalize();
	return 0;
}
