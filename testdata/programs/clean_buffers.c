/* Correct uses of nonblocking buffers: reading a pending send buffer (legal
 * since MPI 2.2), computing on other data in the same pages as pending
 * buffers, touching buffers only after Waitall, a persistent request
 * restarted each iteration, a nonblocking collective, and large messages
 * (the MPI's single-copy and rendezvous paths must keep working while the
 * pages are protected).
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cell {
	double send[8];
	double other[8]; /* same page as both buffers */
	double recv[8];
};

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int peer = (rank + 1) % size, from = (rank + size - 1) % size;
	struct cell *c = calloc(1, sizeof *c);
	MPI_Request r[2];
	double s = 0;
	for (int it = 0; it < 20; it++) {
		MPI_Irecv(c->recv, 8, MPI_DOUBLE, from, 0, MPI_COMM_WORLD, &r[0]);
		MPI_Isend(c->send, 8, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[1]);
		for (int i = 0; i < 8; i++) {
			s += c->send[i];              /* read of a pending send buffer: legal */
			c->other[i] = s + it;         /* other data in the same page */
		}
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
		for (int i = 0; i < 8; i++) {
			c->send[i] = c->recv[i] + 1;  /* after completion */
			c->recv[i] = 0;
		}
	}

	/* persistent requests */
	double pin[4] = {0}, pout[4] = {1, 2, 3, 4};
	MPI_Request p[2];
	MPI_Recv_init(pin, 4, MPI_DOUBLE, from, 1, MPI_COMM_WORLD, &p[0]);
	MPI_Send_init(pout, 4, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &p[1]);
	for (int it = 0; it < 5; it++) {
		MPI_Startall(2, p);
		s += pout[0];
		MPI_Waitall(2, p, MPI_STATUSES_IGNORE);
		pout[0] = pin[0] + it;
	}
	MPI_Request_free(&p[0]);
	MPI_Request_free(&p[1]);

	/* a nonblocking collective, with unrelated work while it runs */
	double local = rank, total = 0, work[16] = {0};
	MPI_Request ar;
	MPI_Iallreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &ar);
	for (int i = 0; i < 16; i++)
		work[i] = i * local;
	MPI_Wait(&ar, MPI_STATUS_IGNORE);

	/* large messages: 8 MiB each way, heap buffers */
	size_t n = 1 << 20;
	double *big_out = malloc(n * sizeof *big_out), *big_in = malloc(n * sizeof *big_in);
	for (size_t i = 0; i < n; i++)
		big_out[i] = (double)i;
	MPI_Irecv(big_in, (int)n, MPI_DOUBLE, from, 2, MPI_COMM_WORLD, &r[0]);
	MPI_Isend(big_out, (int)n, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &r[1]);
	double checksum = 0;
	for (size_t i = 0; i < n; i += 4096)
		checksum += big_out[i]; /* reading the send buffer */
	MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	int ok = big_in[n - 1] == (double)(n - 1);

	if (rank == 0)
		printf("s=%g total=%g work=%g checksum=%g ok=%d\n", s, total, work[15], checksum, ok);
	free(big_out);
	free(big_in);
	free(c);
	MPI_Finalize();
	return ok ? 0 : 1;
}
