/* Objects the program frees while operations that use them are pending,
 * which MPI allows (MPI 4.0 §5.1.11, §3.7.3, §7.4.3, §6.9.5): the MPI keeps
 * them until those complete. Datatypes freed before MPI_Wait/MPI_Waitall of
 * nonblocking sends and receives, before a persistent request made with
 * them is started, before a nonblocking collective and a request-based
 * one-sided operation complete; a user-defined operation freed before its
 * MPI_Iallreduce completes; a communicator freed with receives and sends
 * on it pending. Rank 0 prints what every rank received; the output must
 * be a native run's.
 * mpivet: np=2 verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>

#define N 8

static long check;

static void add(const int *b, int n)
{
	for (int i = 0; i < n; i++)
		check = check * 31 + b[i];
}

static MPI_Datatype every_other(void)
{
	MPI_Datatype t;
	MPI_Type_vector(N / 2, 1, 2, MPI_INT, &t);
	MPI_Type_commit(&t);
	return t;
}

static void p2p(int rank, int peer)
{
	int out[N], in[N];
	MPI_Request r[2];
	for (int i = 0; i < N; i++)
		out[i] = rank * 100 + i, in[i] = -1;
	MPI_Datatype t = every_other();
	MPI_Irecv(in, 1, t, peer, 0, MPI_COMM_WORLD, &r[0]);
	MPI_Isend(out, 1, t, peer, 0, MPI_COMM_WORLD, &r[1]);
	MPI_Type_free(&t);
	MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	add(in, N);
	t = every_other();
	MPI_Irecv(in, 1, t, peer, 1, MPI_COMM_WORLD, &r[0]);
	MPI_Type_free(&t);
	MPI_Send(out, N / 2, MPI_INT, peer, 1, MPI_COMM_WORLD);
	MPI_Wait(&r[0], MPI_STATUS_IGNORE);
	add(in, N);
}

static void persistent(int rank, int peer)
{
	int out[N], in[N];
	MPI_Request r[2];
	MPI_Datatype t = every_other();
	MPI_Recv_init(in, 1, t, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &r[0]);
	MPI_Send_init(out, 1, t, peer, 2, MPI_COMM_WORLD, &r[1]);
	MPI_Type_free(&t);
	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < N; i++)
			out[i] = rank * 100 + k * 10 + i, in[i] = -1;
		MPI_Startall(2, r);
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
		add(in, N);
	}
	MPI_Request_free(&r[0]);
	MPI_Request_free(&r[1]);
}

static void maxabs(void *in, void *inout, int *len, MPI_Datatype *t)
{
	(void)t;
	for (int i = 0; i < *len; i++) {
		int a = ((int *)in)[i] < 0 ? -((int *)in)[i] : ((int *)in)[i];
		if (a > ((int *)inout)[i])
			((int *)inout)[i] = a;
	}
}

static void collectives(int rank)
{
	int out[2 * N], in[2 * N];
	MPI_Request r;
	MPI_Op op;
	for (int i = 0; i < 2 * N; i++)
		out[i] = (rank + 1) * (i % 2 ? -i : i), in[i] = -1;
	MPI_Datatype t = every_other();
	MPI_Ialltoall(out, 1, t, in, 1, t, MPI_COMM_WORLD, &r);
	MPI_Type_free(&t);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	add(in, 2 * N);
	MPI_Op_create(maxabs, 1, &op);
	MPI_Iallreduce(out, in, 2 * N, MPI_INT, op, MPI_COMM_WORLD, &r);
	MPI_Op_free(&op);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	add(in, 2 * N);
}

static void comm_freed(int rank, int peer)
{
	int out[N], in[N];
	MPI_Request r[3];
	MPI_Comm dup;
	for (int i = 0; i < N; i++)
		out[i] = rank * 1000 + i, in[i] = -1;
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Irecv(in, N, MPI_INT, peer, 3, dup, &r[0]);
	MPI_Isend(out, N, MPI_INT, peer, 3, dup, &r[1]);
	MPI_Ibarrier(dup, &r[2]);
	MPI_Comm_free(&dup);
	MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
	add(in, N);
}

static void rma(int rank, int peer)
{
	int win_mem[N], got[N];
	MPI_Win win;
	MPI_Request r;
	for (int i = 0; i < N; i++)
		win_mem[i] = rank * 10 + i, got[i] = -1;
	MPI_Win_create(win_mem, sizeof win_mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Datatype t = every_other();
	MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win);
	MPI_Rget(got, 1, t, peer, 0, 1, t, win, &r);
	MPI_Type_free(&t);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Win_unlock(peer, win);
	add(got, N);
	MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	p2p(rank, 1 - rank);
	persistent(rank, 1 - rank);
	collectives(rank);
	comm_freed(rank, 1 - rank);
	rma(rank, 1 - rank);
	long all[2];
	MPI_Gather(&check, 1, MPI_LONG, all, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%ld %ld\n", all[0], all[1]);
	MPI_Finalize();
	return 0;
}
