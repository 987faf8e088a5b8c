/* Completion calls that choose among requests, in a correct program: rank
 * 0 collects one message from each other rank with a Testany loop (3
 * requests: 3! = 6 orders), then a persistent receive and a send share a
 * Waitany (2 orders: the receive's message is sent after rank 3 has the
 * send's, but not after the Waitany). Every order gives the same sums: 12
 * interleavings, no finding.
 * With --order-bound=-1 and --completion-orders=all every order is
 * replayed, even those that change nothing the program does next.
 * mpivet: np=4 flags=--order-bound=-1,--completion-orders=all verdict=ok interleavings=12
 */
#include <mpi.h>
#include <stdio.h>

static void expect(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "wrong: %s\n", what);
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
}

int main(int argc, char **argv)
{
	int rank, size, v[3], i, flag, order = 0;
	MPI_Request r[3];
	MPI_Status st[3];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 4)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (rank == 0) {
		/* Testany: the order of arrival is a number in base 4 */
		for (i = 0; i < 3; i++)
			MPI_Irecv(&v[i], 1, MPI_INT, i + 1, 0, MPI_COMM_WORLD, &r[i]);
		for (int got = 0, sum = 0; got < 3;) {
			MPI_Testany(3, r, &i, &flag, &st[0]);
			if (!flag || i == MPI_UNDEFINED)
				continue;
			expect(st[0].MPI_SOURCE == i + 1 && v[i] == 10 * (i + 1), "Testany message");
			order = order * 4 + i + 1;
			sum += v[i];
			if (++got == 3)
				expect(sum == 60, "Testany sum");
		}
		printf("order %d\n", order);
		/* a persistent receive and a send in one Waitany */
		MPI_Request p[2];
		int x = 7, y = 0;
		MPI_Recv_init(&y, 1, MPI_INT, 3, 2, MPI_COMM_WORLD, &p[0]);
		MPI_Start(&p[0]);
		MPI_Isend(&x, 1, MPI_INT, 3, 2, MPI_COMM_WORLD, &p[1]);
		for (int k = 0; k < 2; k++)
			MPI_Waitany(2, p, &i, MPI_STATUS_IGNORE);
		expect(y == 8, "persistent receive");
		MPI_Request_free(&p[0]);
	} else {
		int a = 10 * rank;
		MPI_Send(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
		if (rank == 3) {
			int x, y = 8;
			MPI_Recv(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			expect(x == 7, "rank 3's message");
			MPI_Send(&y, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
		}
	}
	MPI_Finalize();
	return 0;
}
