/* Receives too small for their messages. Rank 1 sets MPI_ERRORS_RETURN on a
 * duplicate of the world and sees MPI_ERR_TRUNCATE returned; then, on the
 * world (errors fatal), the MPI ends the job in the second receive.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, out[4] = {1, 2, 3, 4}, in[4];
	MPI_Comm c;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
	if (rank == 0) {
		MPI_Send(out, 4, MPI_INT, 1, 0, c);
		MPI_Send(out, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
	} else {
		MPI_Recv(in, 1, MPI_INT, 0, 0, c, MPI_STATUS_IGNORE); // want "truncation"
		MPI_Recv(in, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "truncation"
	}
	MPI_Comm_free(&c);
	MPI_Finalize();
	return 0;
}
