/* Handles used after they were freed, through a copy the program kept: a
 * datatype, a reduction operation, a communicator. The layer knows them as
 * freed from the frees it saw, without reading the MPI's memory (Open MPI's
 * handles are pointers to what the free gave back), and reports each before
 * the MPI sees it. What the MPI does then differs: the freed datatype,
 * sent to MPI_PROC_NULL, passes in both; MPICH runs the freed operation (it
 * keeps the object) and returns MPI_ERR_COMM for the freed communicator;
 * Open MPI calls the freed operation's memory and crashes there.
 * mpivet: np=2 verdict=error
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
	int rank, x = 1, y = 0, buf[4] = {0};
	MPI_Datatype t, tcopy;
	MPI_Op op, opcopy;
	MPI_Comm c, ccopy;
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);

	MPI_Type_contiguous(2, MPI_INT, &t);
	MPI_Type_commit(&t);
	tcopy = t;
	MPI_Type_free(&t);
	MPI_Send(buf, 1, tcopy, MPI_PROC_NULL, 0, MPI_COMM_WORLD); // want "invalid-argument"

	MPI_Op_create(add, 1, &op);
	opcopy = op;
	MPI_Op_free(&op);
	MPI_Allreduce(&x, &y, 1, MPI_INT, opcopy, MPI_COMM_WORLD); // want "invalid-argument" want(openmpi) "program-failure"

	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
	ccopy = c;
	MPI_Comm_free(&c);
	printf("rank %d: freed\n", rank);
	fflush(stdout);
	MPI_Barrier(ccopy); // want(mpich) "invalid-argument" "mpi-error"
	MPI_Finalize();
	return 0;
}
