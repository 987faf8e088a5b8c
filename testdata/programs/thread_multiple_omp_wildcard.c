/* MPI_THREAD_MULTIPLE with OpenMP: in a parallel region of rank 0, the
 * master thread takes two messages from any source and assumes rank 1's
 * comes first, while OpenMP thread 1 receives a message of its own from
 * rank 1 (another tag). Rank 2 sends late, so the first run matches rank 1
 * first; exploring the master's first receive matches rank 2 first, and
 * the assert fails. thread_multiple_omp_wildcard_clean.c does not depend
 * on the order.
 * mpivet: np=3 verdict=error interleavings=2
 */
#include <assert.h>
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, provided;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	if (provided < MPI_THREAD_MULTIPLE) {
		MPI_Finalize(); /* the MPI cannot run this test; nothing to check */
		return 0;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
#pragma omp parallel num_threads(2)
		{
			int x = -1;
			if (omp_get_thread_num() == 0) {
				MPI_Status st;
				MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
				MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				assert(st.MPI_SOURCE == 1); // want "program-failure"
			} else {
				MPI_Recv(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			}
		}
	} else {
		if (rank == 1)
			MPI_Send(&rank, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
		else
			usleep(200000);
		MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
