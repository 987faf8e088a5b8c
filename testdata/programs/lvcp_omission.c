/* A program of the kind of seed 000, Fig. 5.3, where Lamport clocks miss a
 * potential match that vector clocks find. Rank 3's clock is raised by two
 * wildcard receives (of rank 4's messages) and reaches rank 2 through rank 0,
 * whose message thus carries a Lamport clock above that of rank 2's first
 * wildcard receive although nothing orders the two: rank 0's message could
 * have been the first one rank 2 received. With --clocks=vector (the test in
 * corpus/explore_test.go) exploration finds 2 interleavings, with Lamport
 * clocks 1. Rank 0 waits before sending so that the native run matches rank 1
 * first.
 * mpivet: np=5 mpi=openmpi verdict=ok interleavings=1
 */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	switch (rank) {
	case 0:
		MPI_Recv(&x, 1, MPI_INT, 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		usleep(300000);
		MPI_Send(&x, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
		break;
	case 1:
		MPI_Send(&x, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
		break;
	case 2:
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		break;
	case 3:
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
		break;
	case 4:
		MPI_Send(&x, 1, MPI_INT, 3, 0, MPI_COMM_WORLD);
		MPI_Send(&x, 1, MPI_INT, 3, 0, MPI_COMM_WORLD);
		break;
	}
	MPI_Finalize();
	return 0;
}
