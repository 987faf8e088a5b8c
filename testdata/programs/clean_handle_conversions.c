/* Handles converted between the C and Fortran bindings and back, as mixed
 * C and Fortran programs and libraries with Fortran interfaces do:
 * communicators, datatypes, operations, groups, info objects and requests
 * made in C, converted with MPI_*_c2f, converted back with MPI_*_f2c, and
 * used and freed through the converted handle. They are the same objects:
 * no leak, nothing freed twice, the request completed.
 * mpivet: np=2 verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>

static void add(void *in, void *inout, int *len, MPI_Datatype *t)
{
	for (int i = 0; i < *len; i++)
		((int *)inout)[i] += ((int *)in)[i];
	(void)t;
}

int main(int argc, char **argv)
{
	int rank, x[2], y[2] = {0, 0};
	MPI_Comm dup;
	MPI_Datatype pair;
	MPI_Op op;
	MPI_Group g;
	MPI_Info info;
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	x[0] = rank, x[1] = 1;
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Type_contiguous(2, MPI_INT, &pair);
	MPI_Type_commit(&pair);
	MPI_Op_create(add, 1, &op);
	MPI_Comm_group(dup, &g);
	MPI_Info_create(&info);

	MPI_Fint fc = MPI_Comm_c2f(dup), ft = MPI_Type_c2f(pair), fo = MPI_Op_c2f(op), fg = MPI_Group_c2f(g),
		 fi = MPI_Info_c2f(info);
	MPI_Comm c = MPI_Comm_f2c(fc);
	MPI_Datatype t = MPI_Type_f2c(ft);
	MPI_Op o = MPI_Op_f2c(fo);
	MPI_Group gg = MPI_Group_f2c(fg);
	MPI_Info ii = MPI_Info_f2c(fi);

	MPI_Allreduce(x, y, 2, MPI_INT, o, c);
	int peer = 1 - rank, in[2];
	MPI_Irecv(in, 1, t, peer, 0, c, &r);
	MPI_Fint fr = MPI_Request_c2f(r);
	MPI_Send(x, 1, t, peer, 0, c);
	MPI_Request rr = MPI_Request_f2c(fr);
	MPI_Wait(&rr, MPI_STATUS_IGNORE);
	if (rank == 0)
		printf("sum %d %d, got %d %d\n", y[0], y[1], in[0], in[1]);

	MPI_Info_free(&ii);
	MPI_Group_free(&gg);
	MPI_Op_free(&o);
	MPI_Type_free(&t);
	MPI_Comm_free(&c);
	MPI_Finalize();
	return 0;
}
