/* The correct twin of unsafe_sendrecv_sync.c, run with --buffering=zero,
 * where the send half of every MPI_Sendrecv and MPI_Sendrecv_replace is
 * synchronous: each Sendrecv's send is received by the other rank's
 * Sendrecv, so neither waits for a receive posted after it. The values
 * received are checked (the zero-buffered Sendrecv_replace receives into a
 * copy, a strided vector here, and unpacks it into the buffer), and the
 * statuses' sources, tags and counts.
 * mpivet: np=2 verdict=ok flags=--buffering=zero
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
	int rank, x = 1, y = 2, z = 3, in = 0, n = 0;
	int v[6] = {0, -1, 0, -1, 0, -1};
	MPI_Status st;
	MPI_Datatype every2;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Type_vector(3, 1, 2, MPI_INT, &every2);
	MPI_Type_commit(&every2);
	if (rank == 0) {
		MPI_Sendrecv(&x, 1, MPI_INT, 1, 1, &in, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &st);
		expect(in == 2 && st.MPI_SOURCE == 1 && st.MPI_TAG == 2, "Sendrecv's message");
		MPI_Send(&z, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
		for (int i = 0; i < 3; i++)
			v[2 * i] = 10 + i;
	} else {
		MPI_Sendrecv(&y, 1, MPI_INT, 0, 2, &in, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
		expect(in == 1 && st.MPI_SOURCE == 0 && st.MPI_TAG == 1, "Sendrecv's message");
		MPI_Recv(&in, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		expect(in == 3, "the message after the Sendrecv");
		for (int i = 0; i < 3; i++)
			v[2 * i] = 20 + i;
	}
	/* both exchange their vectors in place */
	MPI_Sendrecv_replace(v, 1, every2, 1 - rank, 4, 1 - rank, 4, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, every2, &n);
	expect(st.MPI_SOURCE == 1 - rank && st.MPI_TAG == 4 && n == 1, "Sendrecv_replace's status");
	for (int i = 0; i < 3; i++)
		expect(v[2 * i] == (rank ? 10 : 20) + i && v[2 * i + 1] == -1, "Sendrecv_replace's data");
	MPI_Type_free(&every2);
	MPI_Finalize();
	return 0;
}
