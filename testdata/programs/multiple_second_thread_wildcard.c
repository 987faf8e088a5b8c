/* MPI_THREAD_MULTIPLE with a second thread that calls MPI (a barrier on a
 * communicator of its own) after the main thread's wildcard receives: the
 * clock protocol goes on when that thread calls MPI, and the main thread's
 * two wildcard receives are explored. Both orders are correct, so the
 * verdict is clean; two interleavings.
 * mpivet: np=3 verdict=ok interleavings=2
 */
#include <mpi.h>
#include <pthread.h>

static MPI_Comm side;

static void *helper(void *arg)
{
	(void)arg;
	MPI_Barrier(side);
	return NULL;
}

int main(int argc, char **argv)
{
	int rank, provided, x = 0;
	pthread_t t;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	if (provided < MPI_THREAD_MULTIPLE) {
		MPI_Finalize(); /* the MPI cannot run this test; nothing to check */
		return 0;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_dup(MPI_COMM_WORLD, &side);
	if (rank == 0) {
		for (int i = 0; i < 2; i++)
			MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	pthread_create(&t, NULL, helper, NULL);
	pthread_join(t, NULL);
	MPI_Comm_free(&side);
	MPI_Finalize();
	return 0;
}
