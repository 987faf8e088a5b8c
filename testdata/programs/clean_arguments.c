/* Arguments that look wrong and are not, for the argument checks: peers
 * that are MPI_PROC_NULL, wildcards in receives and probes, the largest tag
 * (MPI_TAG_UB), MPI_IN_PLACE where each collective allows it (the root's
 * sendbuf of Reduce and Gather, the root's recvbuf of Scatter, every
 * rank's of Allreduce, Allgather, Alltoall, Reduce_scatter_block, Scan),
 * NULL buffers with a zero count, MPI_BOTTOM with a datatype of absolute
 * addresses, buffers and datatypes a collective does not look at on a rank
 * (MPI_DATATYPE_NULL and NULL at the non-roots), a user operation on a
 * derived datatype, MPI_MAXLOC on MPI_2INT, MPI_BAND on MPI_BYTE, MPI_LXOR
 * on MPI_C_BOOL, a duplicate of a committed datatype, an intercommunicator's
 * roots (MPI_ROOT, MPI_PROC_NULL), Sendrecv_replace, and handles the MPI
 * gives again after a free (a freed handle made again is live).
 * mpivet: np=4 verdict=ok
 */
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct pt {
	int a;
	double b;
};

static void addpt(void *in, void *inout, int *len, MPI_Datatype *t)
{
	struct pt *i = in, *o = inout;
	for (int k = 0; k < *len; k++)
		o[k].a += i[k].a, o[k].b += i[k].b;
	(void)t;
}

int main(int argc, char **argv)
{
	int rank, size, x, y, v[16], w[16], *ub, flag;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
	int right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL, left = rank > 0 ? rank - 1 : MPI_PROC_NULL;

	/* peers, wildcards, tags */
	x = rank;
	MPI_Sendrecv(&x, 1, MPI_INT, right, *ub, &y, 1, MPI_INT, left, *ub, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (rank == 0) {
		for (int i = 1; i < size; i++) {
			MPI_Status st;
			MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			MPI_Recv(&y, 1, MPI_INT, st.MPI_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		}
	} else
		MPI_Send(&x, 1, MPI_INT, 0, rank, MPI_COMM_WORLD);
	MPI_Send(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
	MPI_Recv(NULL, 0, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	x = rank;
	MPI_Sendrecv_replace(&x, 1, MPI_INT, right, 0, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

	/* in place where allowed, insignificant arguments at the non-roots */
	for (int i = 0; i < 16; i++)
		v[i] = rank + i, w[i] = 0;
	MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		MPI_Reduce(MPI_IN_PLACE, v, 4, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
	else
		MPI_Reduce(v, NULL, 4, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
	if (rank == 1)
		MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, 1, MPI_INT, 1, MPI_COMM_WORLD);
	else
		MPI_Gather(&v[rank], 1, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, 1, MPI_COMM_WORLD);
	if (rank == 2)
		MPI_Scatter(v, 1, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, 2, MPI_COMM_WORLD);
	else
		MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, &x, 1, MPI_INT, 2, MPI_COMM_WORLD);
	MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, 1, MPI_INT, MPI_COMM_WORLD);
	MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, 1, MPI_INT, MPI_COMM_WORLD);
	MPI_Reduce_scatter_block(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Scan(MPI_IN_PLACE, v, 2, MPI_INT, MPI_PROD, MPI_COMM_WORLD);
	MPI_Allreduce(v, w, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* disjoint */
	MPI_Allreduce(v, v + 4, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* adjacent, disjoint */
	MPI_Bcast(NULL, 0, MPI_INT, 0, MPI_COMM_WORLD);

	/* operations and the types they are defined for */
	struct {
		int v, r;
	} loc = {rank, rank}, best;
	MPI_Allreduce(&loc, &best, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
	unsigned char bits = (unsigned char)(1 << rank), all;
	MPI_Allreduce(&bits, &all, 1, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
	bool odd = rank % 2, parity;
	MPI_Allreduce(&odd, &parity, 1, MPI_C_BOOL, MPI_LXOR, MPI_COMM_WORLD);
	MPI_Datatype ptt, ptdup;
	int lens[2] = {1, 1};
	MPI_Aint disp[2] = {offsetof(struct pt, a), offsetof(struct pt, b)};
	MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
	MPI_Type_create_struct(2, lens, disp, types, &ptt);
	MPI_Type_commit(&ptt);
	MPI_Type_dup(ptt, &ptdup); /* committed, as its original */
	MPI_Op add;
	MPI_Op_create(addpt, 1, &add);
	struct pt p = {rank, rank / 2.0}, sum;
	MPI_Allreduce(&p, &sum, 1, ptdup, add, MPI_COMM_WORLD);
	MPI_Op_free(&add);
	MPI_Type_free(&ptdup);

	/* MPI_BOTTOM with absolute addresses */
	MPI_Aint abs[2];
	MPI_Datatype absolute;
	MPI_Get_address(&p.a, &abs[0]);
	MPI_Get_address(&p.b, &abs[1]);
	MPI_Type_create_struct(2, lens, abs, types, &absolute);
	MPI_Type_commit(&absolute);
	MPI_Bcast(MPI_BOTTOM, 1, absolute, 0, MPI_COMM_WORLD);
	MPI_Type_free(&absolute);

	/* handles made again after frees */
	for (int k = 0; k < 3; k++) {
		MPI_Comm c;
		MPI_Datatype t;
		MPI_Comm_dup(MPI_COMM_WORLD, &c);
		MPI_Type_contiguous(2, MPI_INT, &t);
		MPI_Type_commit(&t);
		MPI_Bcast(v, 1, t, k % size, c);
		MPI_Type_free(&t);
		MPI_Comm_free(&c);
	}

	/* an intercommunicator: the even ranks' group and the odd ranks' */
	MPI_Comm half, inter;
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter);
	x = 42;
	if (rank % 2 == 0)
		MPI_Bcast(&x, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
	else
		MPI_Bcast(&x, 1, MPI_INT, 0, inter);
	MPI_Comm_free(&inter);
	MPI_Comm_free(&half);
	MPI_Type_free(&ptt);
	if (rank == 0)
		printf("done: %d %d %d\n", best.v, all, parity);
	MPI_Finalize();
	return 0;
}
