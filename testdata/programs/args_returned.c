/* Arguments the standard does not allow, one rule a line, with
 * MPI_ERRORS_RETURN so that the run goes on past each: the layer reports
 * every one as invalid-argument, with the parameter, its value and the rule,
 * before the MPI sees it; the MPI then returns its own error (mpi-error),
 * except for the overlapping buffers of MPI_Sendrecv, which neither MPI
 * checks. (A predefined operation on a derived datatype, even one of ints,
 * is refused by both MPIs: predefined operations apply to predefined
 * datatypes.) Each call is to the rank itself or collective, so the run ends
 * normally whatever an MPI lets pass.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, x = 1, y = 0, buf[8] = {0}, *ub, flag;
	double d = 1, e = 0;
	MPI_Datatype pair;
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);

	MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD); // want "invalid-argument" "mpi-error"
	MPI_Recv(&x, 1, MPI_INT, -5, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "invalid-argument" "mpi-error"
	MPI_Bcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD); // want "invalid-argument" "mpi-error"
	MPI_Send(&x, -1, MPI_INT, rank, 0, MPI_COMM_WORLD); // want "invalid-argument" "mpi-error"
	MPI_Send(&x, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD); // want "invalid-argument" "mpi-error"
	MPI_Type_contiguous(2, MPI_INT, &pair);
	MPI_Sendrecv(buf, 1, pair, rank, 0, buf + 4, 1, pair, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "invalid-argument" "mpi-error"
	MPI_Type_commit(&pair);
	MPI_Allreduce(buf, buf + 4, 1, pair, MPI_SUM, MPI_COMM_WORLD); // want "invalid-argument" "mpi-error"
	MPI_Type_free(&pair);
	MPI_Send(&x, 1, MPI_INT, rank, 0, MPI_COMM_NULL); // want "invalid-argument" "mpi-error"
	MPI_Send(&x, 1, MPI_INT, rank, -3, MPI_COMM_WORLD); // want "invalid-argument" "mpi-error"
	MPI_Send(&x, 1, MPI_INT, rank, *ub + 1, MPI_COMM_WORLD); // want "invalid-argument" "mpi-error"
	MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD); // want "invalid-argument" "mpi-error"
	MPI_Allreduce(&d, &e, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD); // want "invalid-argument" "mpi-error"
	MPI_Allreduce(&d, &e, 1, MPI_2INT, MPI_SUM, MPI_COMM_WORLD); // want "invalid-argument" "mpi-error"
	MPI_Sendrecv(NULL, 1, MPI_INT, rank, 0, &y, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "invalid-argument" "mpi-error"
	MPI_Sendrecv(buf, 4, MPI_INT, rank, 0, buf + 2, 4, MPI_INT, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "invalid-argument"
	MPI_Allreduce(buf, buf, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD); // want "invalid-argument" "mpi-error"
	printf("rank %d done\n", rank);
	MPI_Finalize();
	return 0;
}
