/* Every object created is freed and every request completed, through each
 * completion call: Wait, Test loops, Waitany, Waitsome, Testall, Waitall,
 * persistent requests restarted after completion, Cancel followed by Wait,
 * Request_free of a completed persistent request, matched probes, a
 * nonblocking collective, Comm_idup, and Comm_split/Comm_create returning
 * MPI_COMM_NULL on some ranks. No finding.
 * mpivet: np=4 verdict=ok
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, size, flag, idx, outcount, indices[4];
	int sbuf[4] = {1, 2, 3, 4}, rbuf[4];
	MPI_Request r[4], p[2], one;
	MPI_Comm c, split, idup;
	MPI_Group g, g0;
	MPI_Datatype t;
	MPI_Message msg;
	MPI_Status st;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int right = (rank + 1) % size, left = (rank + size - 1) % size;

	/* Wait */
	MPI_Irecv(rbuf, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &r[0]);
	MPI_Isend(sbuf, 1, MPI_INT, right, 0, MPI_COMM_WORLD, &r[1]);
	MPI_Wait(&r[0], MPI_STATUS_IGNORE);
	MPI_Wait(&r[1], &st);

	/* Test loop */
	MPI_Irecv(rbuf, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &r[0]);
	MPI_Send(sbuf, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
	do
		MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
	while (!flag);

	/* Waitany and Waitsome */
	MPI_Irecv(&rbuf[0], 1, MPI_INT, left, 2, MPI_COMM_WORLD, &r[0]);
	MPI_Irecv(&rbuf[1], 1, MPI_INT, right, 3, MPI_COMM_WORLD, &r[1]);
	MPI_Isend(sbuf, 1, MPI_INT, right, 2, MPI_COMM_WORLD, &r[2]);
	MPI_Isend(sbuf, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &r[3]);
	MPI_Waitany(4, r, &idx, MPI_STATUS_IGNORE);
	int done = 1;
	while (done < 4) {
		MPI_Waitsome(4, r, &outcount, indices, MPI_STATUSES_IGNORE);
		done += outcount;
	}

	/* Testall */
	MPI_Irecv(rbuf, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &r[0]);
	MPI_Isend(sbuf, 1, MPI_INT, right, 4, MPI_COMM_WORLD, &r[1]);
	do
		MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE);
	while (!flag);

	/* Persistent requests, started three times, freed when inactive */
	MPI_Recv_init(rbuf, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &p[0]);
	MPI_Send_init(sbuf, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &p[1]);
	for (int i = 0; i < 3; i++) {
		MPI_Startall(2, p);
		MPI_Waitall(2, p, MPI_STATUSES_IGNORE);
	}
	MPI_Request_free(&p[0]);
	MPI_Request_free(&p[1]);

	/* A cancelled receive, completed by Wait */
	MPI_Irecv(rbuf, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &one);
	MPI_Cancel(&one);
	MPI_Wait(&one, &st);

	/* Matched probe and receive */
	MPI_Isend(sbuf, 1, MPI_INT, right, 6, MPI_COMM_WORLD, &one);
	MPI_Mprobe(left, 6, MPI_COMM_WORLD, &msg, &st);
	MPI_Mrecv(rbuf, 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
	MPI_Wait(&one, MPI_STATUS_IGNORE);

	/* Nonblocking collective and idup */
	MPI_Iallreduce(sbuf, rbuf, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &one);
	MPI_Wait(&one, MPI_STATUS_IGNORE);
	MPI_Comm_idup(MPI_COMM_WORLD, &idup, &one);
	MPI_Wait(&one, MPI_STATUS_IGNORE);
	MPI_Comm_free(&idup);

	/* Communicators: some ranks get MPI_COMM_NULL */
	MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, rank, &split);
	if (split != MPI_COMM_NULL)
		MPI_Comm_free(&split);
	MPI_Comm_group(MPI_COMM_WORLD, &g);
	int zero = 0;
	MPI_Group_incl(g, 1, &zero, &g0);
	MPI_Comm_create(MPI_COMM_WORLD, g0, &c);
	if (c != MPI_COMM_NULL)
		MPI_Comm_free(&c);
	MPI_Group_free(&g0);
	MPI_Group_free(&g);

	/* Datatypes */
	MPI_Type_vector(2, 1, 2, MPI_INT, &t);
	MPI_Type_commit(&t);
	MPI_Sendrecv(sbuf, 1, t, right, 7, rbuf, 1, t, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Type_free(&t);

	MPI_Finalize();
	return 0;
}
