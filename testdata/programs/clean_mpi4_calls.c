/* MPI 4.0 calls that communicate, which MPICH 4.0 exports and mpivet does not
 * wrap yet (api/unwrapped.api, gap-communication): a ring exchange with
 * MPI_Isendrecv and MPI_Isendrecv_replace, and a persistent collective
 * (MPI_Allreduce_init, started and completed in a loop, then freed). They
 * must pass through unchanged: the program's results are the same, and no
 * finding is made of what mpivet does not see.
 * mpivet: np=3 verdict=ok mpi=mpich sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, out, in = -1, v, sum = 0, total = 0;
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	out = rank;
	MPI_Isendrecv(&out, 1, MPI_INT, right, 1, &in, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	v = rank * 10;
	MPI_Isendrecv_replace(&v, 1, MPI_INT, left, 2, right, 2, MPI_COMM_WORLD, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);

	MPI_Allreduce_init(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
	for (int i = 0; i < 3; i++) {
		v += i;
		MPI_Start(&r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		total += sum;
	}
	MPI_Request_free(&r);
	if (rank == 0)
		printf("from left %d, from right %d, total %d\n", in, v - 3, total);
	MPI_Finalize();
	return 0;
}
