/* Error handlers as libraries use them. A user error handler on a
 * communicator is called for an erroneous send (to a rank that does not
 * exist) and returns: the program goes on, and the call returns the error.
 * MPI_ERRORS_RETURN on MPI_COMM_WORLD: the error of a bad count is returned
 * and the program handles it. Both are errors of the program all the same:
 * mpivet reports each as invalid-argument (before the MPI sees it) and as
 * mpi-error (what the MPI returned), as for any error a call returns. The
 * program sees the handlers it set, and, before it sets one, the default:
 * MPI_Comm_get_errhandler gives MPI_ERRORS_ARE_FATAL, not the handler the
 * layer put on MPI_COMM_WORLD to log fatal errors.
 * mpivet: np=2 verdict=error sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>

static int called;

static void handler(MPI_Comm *c, int *code, ...)
{
	int class;
	MPI_Error_class(*code, &class);
	called++;
	(void)c;
}

int main(int argc, char **argv)
{
	int rank, size, x = 1, rc, fatal;
	MPI_Comm c;
	MPI_Errhandler eh, got;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
	fatal = got == MPI_ERRORS_ARE_FATAL;
	MPI_Errhandler_free(&got);

	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	MPI_Comm_create_errhandler(handler, &eh);
	MPI_Comm_set_errhandler(c, eh);
	MPI_Errhandler_free(&eh);
	rc = MPI_Send(&x, 1, MPI_INT, size, 0, c); // want "invalid-argument" "mpi-error"
	int user = rc != MPI_SUCCESS && called == 1;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rc = MPI_Send(&x, -1, MPI_INT, rank, 0, MPI_COMM_WORLD); // want "invalid-argument" "mpi-error"
	int returned = rc != MPI_SUCCESS;
	MPI_Comm_free(&c);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("default fatal %d, user handler called %d, error returned %d\n", fatal, user, returned);
	MPI_Finalize();
	return 0;
}
