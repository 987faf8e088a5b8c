/* Wildcard receives in the forms the clock protocol must piggyback
 * correctly, each checking what it received: two wildcard Irecvs completed
 * in reverse order (seed 000, Fig. 2.15), a partial receive (MPI_Get_count
 * sees the program's count), a cancelled wildcard Irecv, an Iprobe loop and
 * a Probe before the receive, Mprobe/Mrecv, a persistent wildcard receive,
 * Waitany, Sendrecv, a nonblocking collective and a communicator made at run
 * time. Every interleaving is correct. Each alternative of each event is
 * replayed, nested one level (--mixing-bound=1): every form is then checked
 * with a forced match, in a fraction of the 128 interleavings.
 * mpivet: np=3 verdict=ok flags=--mixing-bound=1
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void expect(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "wrong: %s\n", what);
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
}

int main(int argc, char **argv)
{
	int rank, size, a[4] = {0}, b[4] = {0}, n, flag;
	MPI_Request h[3];
	MPI_Status st;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm half;
	MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &half); /* reversed ranks */

	/* 1. Fig. 2.15: two wildcard Irecvs from rank 1's two messages, waited in reverse. */
	if (rank == 0) {
		MPI_Irecv(a, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &h[0]);
		MPI_Irecv(b, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &h[1]);
		MPI_Wait(&h[1], &st);
		MPI_Wait(&h[0], MPI_STATUS_IGNORE);
		expect(a[0] == 1 && b[0] == 2, "non-overtaking order");
	} else if (rank == 1) {
		int one = 1, two = 2;
		MPI_Isend(&one, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &h[0]);
		MPI_Isend(&two, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &h[1]);
		MPI_Waitall(2, h, MPI_STATUSES_IGNORE);
	}
	MPI_Barrier(MPI_COMM_WORLD);

	/* 2. Partial receive from anyone, Get_count; then a cancelled wildcard Irecv. */
	if (rank == 0) {
		for (int i = 0; i < size - 1; i++) {
			MPI_Recv(a, 4, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &st);
			MPI_Get_count(&st, MPI_INT, &n);
			expect(n == 2 && a[0] == st.MPI_SOURCE && a[1] == 10 * st.MPI_SOURCE, "partial receive");
		}
		MPI_Irecv(b, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &h[2]);
		MPI_Cancel(&h[2]);
		MPI_Wait(&h[2], &st);
		MPI_Test_cancelled(&st, &flag);
		expect(flag, "cancelled");
	} else {
		int m[2] = {rank, 10 * rank};
		MPI_Send(m, 2, MPI_INT, 0, 8, MPI_COMM_WORLD);
	}

	/* 3. Iprobe loop, Probe, Mprobe from anyone. */
	if (rank == 0) {
		for (int i = 0; i < size - 1; i++) {
			flag = 0;
			while (!flag)
				MPI_Iprobe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &flag, &st);
			MPI_Recv(a, 1, MPI_INT, st.MPI_SOURCE, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			expect(a[0] == st.MPI_SOURCE, "iprobe");
		}
		for (int i = 0; i < size - 1; i++) {
			MPI_Probe(MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &st);
			MPI_Recv(a, 1, MPI_INT, st.MPI_SOURCE, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			expect(a[0] == st.MPI_SOURCE, "probe");
		}
		for (int i = 0; i < size - 1; i++) {
			MPI_Message msg;
			MPI_Mprobe(MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &msg, &st);
			MPI_Mrecv(a, 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
			expect(a[0] == st.MPI_SOURCE, "mprobe");
		}
	} else {
		MPI_Send(&rank, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
		MPI_Send(&rank, 1, MPI_INT, 0, 10, MPI_COMM_WORLD);
		MPI_Send(&rank, 1, MPI_INT, 0, 11, MPI_COMM_WORLD);
	}

	/* 4. A persistent wildcard receive, then Waitany over wildcard Irecvs. */
	if (rank == 0) {
		MPI_Request p;
		MPI_Recv_init(a, 1, MPI_INT, MPI_ANY_SOURCE, 12, MPI_COMM_WORLD, &p);
		for (int i = 0; i < size - 1; i++) {
			MPI_Start(&p);
			MPI_Wait(&p, &st);
			expect(a[0] == st.MPI_SOURCE, "persistent");
		}
		MPI_Request_free(&p);
		MPI_Irecv(&a[0], 1, MPI_INT, MPI_ANY_SOURCE, 13, MPI_COMM_WORLD, &h[0]);
		MPI_Irecv(&a[1], 1, MPI_INT, MPI_ANY_SOURCE, 13, MPI_COMM_WORLD, &h[1]);
		int idx;
		MPI_Waitany(2, h, &idx, &st);
		expect(a[idx] == st.MPI_SOURCE, "waitany");
		MPI_Wait(&h[1 - idx], &st);
		expect(a[1 - idx] == st.MPI_SOURCE, "waitany rest");
	} else {
		MPI_Send(&rank, 1, MPI_INT, 0, 12, MPI_COMM_WORLD);
		MPI_Send(&rank, 1, MPI_INT, 0, 13, MPI_COMM_WORLD);
	}

	/* 5. Sendrecv with a wildcard source on the reversed communicator, and an Iallreduce. */
	int hr, hs;
	MPI_Comm_rank(half, &hr);
	MPI_Comm_size(half, &hs);
	int got = -1;
	MPI_Sendrecv(&hr, 1, MPI_INT, (hr + 1) % hs, 14, &got, 1, MPI_INT, MPI_ANY_SOURCE, 14, half, &st);
	expect(got == st.MPI_SOURCE && got == (hr + hs - 1) % hs, "sendrecv");
	int sum = 0;
	MPI_Iallreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half, &h[0]);
	MPI_Wait(&h[0], MPI_STATUS_IGNORE);
	expect(sum == size * (size - 1) / 2, "iallreduce");
	MPI_Comm_free(&half);
	MPI_Finalize();
	return 0;
}
