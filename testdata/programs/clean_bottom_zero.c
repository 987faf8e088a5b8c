/* MPI_BOTTOM with datatypes of absolute addresses, and zero counts with
 * buffers that are not there, in point-to-point calls, blocking and
 * nonblocking collectives and one-sided calls: all legal (MPI 4.0 §5.1.12,
 * §3.2.2). Rank 0 prints what the ranks received; the output must be a
 * native run's.
 * mpivet: np=2 verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>

struct particle {
	int id;
	double x[3];
};

static long check;

static void add(const struct particle *p)
{
	check = check * 31 + p->id;
	for (int i = 0; i < 3; i++)
		check = check * 31 + (long)(p->x[i] * 10);
}

/* absolute gives a datatype that holds p's id and coordinates at their
 * absolute addresses: used with MPI_BOTTOM. */
static MPI_Datatype absolute(struct particle *p)
{
	int len[2] = {1, 3};
	MPI_Aint at[2];
	MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, t;
	MPI_Get_address(&p->id, &at[0]);
	MPI_Get_address(p->x, &at[1]);
	MPI_Type_create_struct(2, len, at, types, &t);
	MPI_Type_commit(&t);
	return t;
}

int main(int argc, char **argv)
{
	int rank, peer, none[1];
	struct particle mine, got;
	long all[2];
	MPI_Request r[3];
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	peer = 1 - rank;
	mine.id = rank + 7;
	for (int i = 0; i < 3; i++)
		mine.x[i] = rank + i * 0.5;
	MPI_Datatype tm = absolute(&mine), tg = absolute(&got);
	MPI_Irecv(MPI_BOTTOM, 1, tg, peer, 0, MPI_COMM_WORLD, &r[0]);
	MPI_Isend(MPI_BOTTOM, 1, tm, peer, 0, MPI_COMM_WORLD, &r[1]);
	MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	add(&got);
	MPI_Sendrecv(MPI_BOTTOM, 1, tm, peer, 1, MPI_BOTTOM, 1, tg, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	add(&got);
	if (rank == 0)
		got = mine;
	MPI_Bcast(MPI_BOTTOM, 1, tg, 0, MPI_COMM_WORLD);
	add(&got);
	MPI_Ibcast(MPI_BOTTOM, 1, rank == 1 ? tm : tg, 1, MPI_COMM_WORLD, &r[0]);
	MPI_Wait(&r[0], MPI_STATUS_IGNORE);
	add(&got);
	/* zero counts: the buffers are never read or written */
	MPI_Isend(NULL, 0, MPI_INT, peer, 2, MPI_COMM_WORLD, &r[0]);
	MPI_Irecv((void *)8, 0, MPI_INT, peer, 2, MPI_COMM_WORLD, &r[1]);
	MPI_Ibarrier(MPI_COMM_WORLD, &r[2]);
	MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
	if (rank == 0)
		MPI_Send(none, 0, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD);
	else
		MPI_Recv(NULL, 0, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Iallgather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_WORLD, &r[0]);
	MPI_Wait(&r[0], MPI_STATUS_IGNORE);
	MPI_Bcast(NULL, 0, MPI_BYTE, 0, MPI_COMM_WORLD);
	MPI_Win_create(none, sizeof none, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_fence(0, win);
	MPI_Put(NULL, 0, MPI_INT, peer, 0, 0, MPI_INT, win);
	MPI_Get(NULL, 0, MPI_INT, peer, 0, 0, MPI_INT, win);
	MPI_Accumulate(NULL, 0, MPI_INT, peer, 0, 0, MPI_INT, MPI_SUM, win);
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);
	MPI_Type_free(&tm);
	MPI_Type_free(&tg);
	MPI_Gather(&check, 1, MPI_LONG, all, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%ld %ld\n", all[0], all[1]);
	MPI_Finalize();
	return 0;
}
