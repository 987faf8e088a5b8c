// mpivet: np=3 flags=--deterministic,--buffering-check=off verdict=ok
/* MPI_Request_get_status on wildcard MPI_Irecvs in deterministic mode,
 * where the MPI holds a placeholder for each until the mode decides its
 * message: the call must behave as MPI_Test without freeing the request
 * (the mode decides the wildcard at a fixed logical time, and the status
 * is the real receive's: the sender's rank, its tag and count), and the
 * MPI_Wait after it must give the same status. Workers 1 and 2 send w ints
 * of value 100*w+i with tag 10+w, twice; rank 0 polls each wildcard with
 * MPI_Request_get_status, then with MPI_Test for the second round. */
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

/* check: st is the status of worker w's message in buf. */
static void check(const MPI_Status *st, const int *buf, const char *what)
{
	int w = st->MPI_SOURCE, n = -1;
	expect(w == 1 || w == 2, what);
	expect(st->MPI_TAG == 10 + w, what);
	MPI_Get_count(st, MPI_INT, &n);
	expect(n == w, what);
	for (int i = 0; i < n; i++)
		expect(buf[i] == 100 * w + i, what);
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int round = 0; round < 2; round++) {
		if (rank == 0) {
			for (int k = 1; k < size; k++) {
				int buf[8] = {0}, flag = 0, polls = 0;
				MPI_Request r;
				MPI_Status st, wst;
				MPI_Irecv(buf, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r);
				while (!flag) {
					MPI_Request_get_status(r, &flag, &st);
					polls++;
				}
				expect(r != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
				check(&st, buf, "MPI_Request_get_status's status");
				/* asked again: complete still, the same status */
				MPI_Request_get_status(r, &flag, &wst);
				expect(flag && wst.MPI_SOURCE == st.MPI_SOURCE && wst.MPI_TAG == st.MPI_TAG, "a second MPI_Request_get_status");
				if (round == 0)
					MPI_Wait(&r, &wst);
				else
					for (flag = 0; !flag;)
						MPI_Test(&r, &flag, &wst);
				expect(r == MPI_REQUEST_NULL, "the completed request");
				expect(wst.MPI_SOURCE == st.MPI_SOURCE && wst.MPI_TAG == st.MPI_TAG, "the completion's status");
				check(&wst, buf, "the completion's status");
				printf("round %d: message of rank %d after %d polls\n", round, st.MPI_SOURCE, polls > 1 ? 2 : 1);
			}
			for (int w = 1; w < size; w++) /* the next round */
				MPI_Send(&round, 1, MPI_INT, w, 1, MPI_COMM_WORLD);
		} else {
			int buf[8], go;
			for (int i = 0; i < rank; i++)
				buf[i] = 100 * rank + i;
			MPI_Send(buf, rank, MPI_INT, 0, 10 + rank, MPI_COMM_WORLD);
			/* not a collective: a rank blocked in a receive answers the
			 * mode's questions about its logical time */
			MPI_Recv(&go, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		}
	}
	MPI_Finalize();
	return 0;
}
