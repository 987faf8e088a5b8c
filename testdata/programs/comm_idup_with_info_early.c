/* A communicator made by MPI_Comm_idup_with_info (MPI 4.0) used before its
 * request completed: valid only from then on (MPI 4.0 §7.4.2). The early
 * use is a send to MPI_PROC_NULL, which the MPI lets pass; the same use
 * after MPI_Wait is correct. Open MPI 4.1 has no MPI_Comm_idup_with_info.
 * mpivet: np=2 verdict=error mpi=mpich
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int x = 1;
	MPI_Comm c;
	MPI_Request r;
	MPI_Info info;
	MPI_Init(&argc, &argv);
	MPI_Info_create(&info);
	MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
	MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &c, &r);
	MPI_Info_free(&info);
	MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, c); // want "request-lifecycle"
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, c);
	MPI_Comm_free(&c);
	MPI_Finalize();
	return 0;
}
