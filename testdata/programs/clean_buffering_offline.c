/* Point-to-point patterns that need no buffering, of every kind the offline
 * zero-buffering replay follows: receives posted before the sends, an
 * ordered pair, MPI_Sendrecv, a persistent exchange, a probe before its
 * receive, MPI_Bsend, a collective and MPI_ANY_SOURCE. Each standard-mode
 * send's receive is posted by a rank that does not wait for it, so the
 * records show that zero buffering would not deadlock: the program is not
 * run a second time.
 * mpivet: np=3 verdict=ok buffering=offline
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, x = 0, y = 0;
	MPI_Request r[2];
	MPI_Status st;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int right = (rank + 1) % size, left = (rank + size - 1) % size;

	/* ring: receive posted first, then a blocking send */
	MPI_Irecv(&y, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &r[0]);
	MPI_Send(&x, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
	MPI_Wait(&r[0], MPI_STATUS_IGNORE);

	/* ordered pair: even ranks send first */
	if (rank % 2 == 0 && right != 0) {
		MPI_Send(&x, 1, MPI_INT, right, 2, MPI_COMM_WORLD);
		MPI_Recv(&y, 1, MPI_INT, right, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else if (rank % 2 == 1) {
		MPI_Recv(&y, 1, MPI_INT, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(&x, 1, MPI_INT, left, 3, MPI_COMM_WORLD);
	}

	/* sendrecv around the ring */
	MPI_Sendrecv(&x, 1, MPI_INT, right, 4, &y, 1, MPI_INT, left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

	/* persistent exchange, twice */
	MPI_Recv_init(&y, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &r[0]);
	MPI_Send_init(&x, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &r[1]);
	for (int i = 0; i < 2; i++) {
		MPI_Startall(2, r);
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	}
	MPI_Request_free(&r[0]);
	MPI_Request_free(&r[1]);

	/* buffered sends head to head: MPI_Bsend needs no receive */
	int bsize = 2 * (MPI_BSEND_OVERHEAD + (int)sizeof(int));
	void *buf = malloc(bsize);
	MPI_Buffer_attach(buf, bsize);
	MPI_Bsend(&x, 1, MPI_INT, right, 6, MPI_COMM_WORLD);
	MPI_Recv(&y, 1, MPI_INT, left, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Buffer_detach(&buf, &bsize);
	free(buf);

	/* a collective, then rank 0 gathers from any source after probing */
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		for (int i = 1; i < size; i++) {
			MPI_Probe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st);
			MPI_Recv(&y, 1, MPI_INT, st.MPI_SOURCE, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		}
	} else {
		MPI_Send(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
