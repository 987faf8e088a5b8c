/* A correct program that sends many messages by every kind of send and
 * receives each of them by every kind of receive and completion: blocking,
 * nonblocking (Waitall, Waitany, Testsome, Request_get_status then Wait),
 * persistent (Startall), Sendrecv and Sendrecv_replace, Probe, Iprobe,
 * Mprobe/Mrecv, Improbe/Imrecv, Bsend, Ssend, Rsend, wildcards, and
 * MPI_PROC_NULL on both sides. Every message is received: no finding (and
 * the counts the layer keeps agree, so MPI_Finalize does not look for
 * unreceived messages). The loop's wildcards are not explored (MPI_Pcontrol).
 * mpivet: np=2 verdict=ok interleavings=1
 */
#include <mpi.h>
#include <stdlib.h>

#define ROUNDS 50

int main(int argc, char **argv)
{
	int rank, size, x[4] = {0}, y[4], flag;
	MPI_Request r[4];
	MPI_Status st;
	MPI_Message m;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	int bsize = 64 * (16 + MPI_BSEND_OVERHEAD);
	void *bbuf = malloc(bsize);
	MPI_Buffer_attach(bbuf, bsize);
	MPI_Send_init(x, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &r[2]);
	MPI_Recv_init(y, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &r[3]);
	MPI_Pcontrol(0);
	for (int i = 0; i < ROUNDS; i++) {
		MPI_Sendrecv(x, 1, MPI_INT, right, 0, y, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Sendrecv_replace(x, 1, MPI_INT, right, 1, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Irecv(y, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &r[0]);
		MPI_Isend(x, 1, MPI_INT, right, 2, MPI_COMM_WORLD, &r[1]);
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
		MPI_Irecv(y, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &r[0]);
		MPI_Bsend(x, 1, MPI_INT, right, 3, MPI_COMM_WORLD);
		int idx;
		MPI_Waitany(1, r, &idx, &st);
		MPI_Startall(2, &r[2]);
		MPI_Waitall(2, &r[2], MPI_STATUSES_IGNORE);
		MPI_Issend(x, 1, MPI_INT, right, 4, MPI_COMM_WORLD, &r[1]);
		MPI_Probe(left, 4, MPI_COMM_WORLD, &st);
		MPI_Recv(y, 1, MPI_INT, st.MPI_SOURCE, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Wait(&r[1], MPI_STATUS_IGNORE);
		MPI_Isend(x, 2, MPI_INT, right, 6, MPI_COMM_WORLD, &r[1]);
		do
			MPI_Iprobe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &flag, &st);
		while (!flag);
		MPI_Recv(y, 2, MPI_INT, st.MPI_SOURCE, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Wait(&r[1], MPI_STATUS_IGNORE);
		MPI_Isend(x, 3, MPI_INT, right, 7, MPI_COMM_WORLD, &r[1]);
		MPI_Mprobe(left, 7, MPI_COMM_WORLD, &m, &st);
		MPI_Mrecv(y, 3, MPI_INT, &m, MPI_STATUS_IGNORE);
		MPI_Wait(&r[1], MPI_STATUS_IGNORE);
		MPI_Isend(x, 1, MPI_INT, right, 8, MPI_COMM_WORLD, &r[1]);
		do
			MPI_Improbe(MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &flag, &m, &st);
		while (!flag);
		MPI_Imrecv(y, 1, MPI_INT, &m, &r[0]);
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
		MPI_Irecv(y, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &r[0]);
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Rsend(x, 1, MPI_INT, right, 9, MPI_COMM_WORLD);
		do
			MPI_Request_get_status(r[0], &flag, MPI_STATUS_IGNORE);
		while (!flag);
		MPI_Wait(&r[0], MPI_STATUS_IGNORE);
		MPI_Request t[3];
		MPI_Irecv(y, 1, MPI_INT, left, 10, MPI_COMM_WORLD, &t[0]);
		MPI_Irecv(&y[1], 1, MPI_INT, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &t[1]);
		MPI_Isend(x, 1, MPI_INT, right, 10, MPI_COMM_WORLD, &t[2]);
		int done = 0, out, ids[3];
		while (done < 3) {
			MPI_Testsome(3, t, &out, ids, MPI_STATUSES_IGNORE);
			done += out == MPI_UNDEFINED ? 0 : out;
		}
		MPI_Send(x, 1, MPI_INT, MPI_PROC_NULL, 11, MPI_COMM_WORLD);
		MPI_Recv(y, 1, MPI_INT, MPI_PROC_NULL, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Pcontrol(1);
	MPI_Request_free(&r[2]);
	MPI_Request_free(&r[3]);
	MPI_Buffer_detach(&bbuf, &bsize);
	free(bbuf);
	MPI_Finalize();
	return 0;
}
