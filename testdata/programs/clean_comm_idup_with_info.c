/* MPI_Comm_idup_with_info (MPI 4.0) used correctly: the duplicate is
 * requested, a collective on the parent overlaps it, the new communicator
 * carries messages (their clocks on its shadow) and a collective once the
 * request completed, then is freed. Open MPI 4.1 has no
 * MPI_Comm_idup_with_info.
 * mpivet: np=2 verdict=ok mpi=mpich
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, sum = 0, one = 1, x = 0;
	MPI_Comm c;
	MPI_Request r;
	MPI_Info info;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Info_create(&info);
	MPI_Info_set(info, "mpi_assert_no_any_source", "true");
	MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &c, &r);
	MPI_Info_free(&info);
	MPI_Allreduce(&one, &size, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* overlaps the duplication */
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	if (rank == 0)
		MPI_Send(&one, 1, MPI_INT, 1, 7, c);
	else if (rank == 1)
		MPI_Recv(&x, 1, MPI_INT, 0, 7, c, MPI_STATUS_IGNORE);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
	if (rank == 0)
		printf("size %d sum %d\n", size, sum);
	MPI_Comm_free(&c);
	MPI_Finalize();
	return 0;
}
