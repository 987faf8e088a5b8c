/* Seed 003, Fig. 4: rank 0 waits (Waitall) for two wildcard receives, one on
 * communicator A = {0,1,2}, one on B = {0,2,3}; ranks 1 and 3 receive from
 * rank 2, rank 2 from rank 0. Everyone is deadlocked; ranks 0, 1, 2 form the
 * core (the knot of Fig. 7), rank 3 only waits on it.
 * mpivet: np=4 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, buf[2], x;
	MPI_Comm a, b;
	MPI_Request reqs[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_split(MPI_COMM_WORLD, rank == 3 ? MPI_UNDEFINED : 0, rank, &a);
	MPI_Comm_split(MPI_COMM_WORLD, rank == 1 ? MPI_UNDEFINED : 0, rank, &b);
	if (rank == 0) {
		MPI_Irecv(&buf[0], 1, MPI_INT, MPI_ANY_SOURCE, 0, a, &reqs[0]);
		MPI_Irecv(&buf[1], 1, MPI_INT, MPI_ANY_SOURCE, 0, b, &reqs[1]);
		MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE); // want "deadlock"
	} else if (rank == 2) {
		MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(&x, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	/* never reached: the sends that would release everyone are missing */
	if (a != MPI_COMM_NULL)
		MPI_Comm_free(&a);
	if (b != MPI_COMM_NULL)
		MPI_Comm_free(&b);
	MPI_Finalize();
	return 0;
}
