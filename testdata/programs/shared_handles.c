/* Small sends complete at once, and both Open MPI and MPICH then return one
 * shared request handle for all of them: the request left unwaited must
 * still be told from the waited ones. Requests copied into another array
 * before Waitall are completed all the same.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, a = 1, b[3];
	MPI_Request r[3], copy[3];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int peer = 1 - rank;
	/* copied, then completed through the copy: no finding */
	for (int i = 0; i < 3; i++) {
		MPI_Isend(&a, 1, MPI_INT, peer, i, MPI_COMM_WORLD, &r[i]);
		copy[i] = r[i];
	}
	for (int i = 0; i < 3; i++)
		MPI_Recv(&b[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Waitall(3, copy, MPI_STATUSES_IGNORE);
	/* the second of two sends is never waited for */
	MPI_Isend(&a, 1, MPI_INT, peer, 10, MPI_COMM_WORLD, &r[0]);
	MPI_Isend(&a, 1, MPI_INT, peer, 11, MPI_COMM_WORLD, &r[1]); // want "resource-leak" "request-lifecycle"
	MPI_Recv(&b[0], 1, MPI_INT, peer, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Recv(&b[1], 1, MPI_INT, peer, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Wait(&r[0], MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
