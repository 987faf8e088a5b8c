/* MPI_Comm_idup as libraries use it: the duplicate is requested early, other
 * work overlaps it, and the new communicator is used only once the request
 * completed (MPI_Wait here, MPI_Test in a loop for the second), then freed.
 * mpivet: np=3 verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, sum = 0, sum2 = 0, flag = 0, one = 1;
	MPI_Comm a, b;
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_idup(MPI_COMM_WORLD, &a, &r);
	MPI_Allreduce(&one, &size, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* overlaps the duplication */
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, a);
	MPI_Comm_idup(a, &b, &r);
	while (!flag)
		MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
	MPI_Allreduce(&rank, &sum2, 1, MPI_INT, MPI_MAX, b);
	if (rank == 0)
		printf("size %d sum %d max %d\n", size, sum, sum2);
	MPI_Comm_free(&b);
	MPI_Comm_free(&a);
	MPI_Finalize();
	return 0;
}
